// SPDX-License-Identifier: MIT
// What a measurement set measured (include/throng/measure.h): a line's
// crossings and its flow over a window, an area's samples and their means.
#include <math.h>
#include <string.h>

#include "error.h"
#include "measure_internal.h"

throng_status throng_measure_line_crossings(const throng_measure* m, uint32_t line, const throng_crossing** out,
                                            size_t* count)
{
	static const char fn[] = "throng_measure_line_crossings";
	if (m == NULL || out == NULL || count == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, m == NULL ? "m" : out == NULL ? "out" : "count");
	}
	if (line >= m->nlines) {
		return thr_fail(THRONG_ERR_NOT_FOUND, "%s: line: no line %u (the set has %u)", fn, line, m->nlines);
	}
	*out = m->lines[line].cr;
	*count = m->lines[line].n;
	return THRONG_OK;
}

throng_status throng_measure_line_flow(const throng_measure* m, uint32_t line, double t0, double t1,
                                       throng_line_flow* out)
{
	static const char fn[] = "throng_measure_line_flow";
	if (m == NULL || out == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, m == NULL ? "m" : "out");
	}
	if (line >= m->nlines) {
		return thr_fail(THRONG_ERR_NOT_FOUND, "%s: line: no line %u (the set has %u)", fn, line, m->nlines);
	}
	if (!isfinite(t0) || !isfinite(t1) || !(t1 > t0)) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: t1: the window must be finite with t1 > t0 (got [%g, %g))", fn,
		                t0, t1);
	}
	memset(out, 0, sizeof *out);
	out->t0 = t0;
	out->t1 = t1;
	const line_rec* ln = &m->lines[line];
	for (uint32_t k = 0; k < ln->n; ++k) {
		if (ln->cr[k].time >= t0 && ln->cr[k].time < t1) {
			if (ln->cr[k].direction > 0) {
				out->left++;
			} else {
				out->right++;
			}
			out->first_passings += ln->first[k];
		}
	}
	double w = t1 - t0;
	out->flow_left = (double)out->left / w;
	out->flow_right = (double)out->right / w;
	out->flow_total = (double)(out->left + out->right) / w;
	out->flow_net = ((double)out->left - (double)out->right) / w;
	return THRONG_OK;
}

throng_status throng_measure_area_samples(const throng_measure* m, uint32_t area, const throng_area_sample** out,
                                          size_t* count)
{
	static const char fn[] = "throng_measure_area_samples";
	if (m == NULL || out == NULL || count == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, m == NULL ? "m" : out == NULL ? "out" : "count");
	}
	if (area >= m->nareas) {
		return thr_fail(THRONG_ERR_NOT_FOUND, "%s: area: no area %u (the set has %u)", fn, area, m->nareas);
	}
	*out = m->areas[area].s;
	*count = m->areas[area].ns;
	return THRONG_OK;
}

throng_status throng_measure_area_means(const throng_measure* m, uint32_t area, double t0, double t1,
                                        throng_area_means* out)
{
	static const char fn[] = "throng_measure_area_means";
	if (m == NULL || out == NULL) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: %s is NULL", fn, m == NULL ? "m" : "out");
	}
	if (area >= m->nareas) {
		return thr_fail(THRONG_ERR_NOT_FOUND, "%s: area: no area %u (the set has %u)", fn, area, m->nareas);
	}
	if (!isfinite(t0) || !isfinite(t1) || !(t1 >= t0)) {
		return thr_fail(THRONG_ERR_INVALID_ARGUMENT, "%s: t1: the window must be finite with t1 >= t0 (got [%g, %g])",
		                fn, t0, t1);
	}
	memset(out, 0, sizeof *out);
	out->t0 = t0;
	out->t1 = t1;
	const area_rec* ar = &m->areas[area];
	uint64_t with_speed = 0;
	for (uint32_t k = 0; k < ar->ns; ++k) {
		const throng_area_sample* s = &ar->s[k];
		if (s->time < t0 || s->time > t1) {
			continue;
		}
		out->samples++;
		out->density += s->density;
		out->voronoi_density += s->voronoi_density;
		if (s->with_speed > 0) {
			with_speed++;
			out->mean_speed += s->mean_speed;
			out->voronoi_speed += s->voronoi_speed;
		}
	}
	if (out->samples > 0) {
		out->density /= (double)out->samples;
		out->voronoi_density /= (double)out->samples;
	}
	if (with_speed > 0) {
		out->mean_speed /= (double)with_speed;
		out->voronoi_speed /= (double)with_speed;
	}
	return THRONG_OK;
}
