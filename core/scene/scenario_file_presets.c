// SPDX-License-Identifier: MIT
// Scenario files: presets, archetypes a file names instead of stating
// them (docs/SCENARIOS.md, "preset").
//
//   archetypes:
//     walker: {preset: pedestrian, drive: path_following}
//
// A preset is one of the library's C constructors, so a file and a
// program that say "pedestrian" get the same controller, bit for bit, and
// the constructor stays the one place its values live (fitted to
// experiments: docs/QUALITY.md, "Against experiments"). The archetype's
// other keys then override the preset's values: mode and relaxation_time
// replace them, target_rule adds a rule, contact replaces the keys it
// gives and keeps the others. `slots` beside a preset is refused rather
// than merged: a preset's slots are one design (their order is their
// priority), and a file that wants other slots states them all. The
// groups of a preset's archetype take the preset's body (max_speed,
// max_force, radius) where they state none.
//
// `throng save` writes the controller out, not the preset: a saved file
// says what was simulated, and keeps saying it when the preset's values
// change.
#include <string.h>

#include "scenario_file_internal.h"
#include "throng/behavior.h"

static const throng_behavior_kind pedestrian_drives[] = {THRONG_ARRIVE, THRONG_SEEK, THRONG_PATH_FOLLOW};

const sf_preset sf_presets[] = {
	{.name = "pedestrian",
	 .drives = pedestrian_drives,
	 .drive_count = sizeof pedestrian_drives / sizeof pedestrian_drives[0],
	 .controller = throng_controller_pedestrian_def,
	 .body = throng_agent_pedestrian_def},
};
const uint32_t sf_preset_count = sizeof sf_presets / sizeof sf_presets[0];

#define SF_MAX_PRESETS 8u
#define SF_MAX_DRIVES 8u

/// The drive of preset `p` written at `n`: one of its drives; a behaviour
/// it does not take is named as such.
static bool read_drive(sf_ctx* c, const sf_node* n, const sf_preset* p, throng_behavior_kind* out)
{
	const char* names[SF_MAX_DRIVES];
	for (uint32_t k = 0; k < p->drive_count && k < SF_MAX_DRIVES; ++k) {
		names[k] = throng_behavior_kind_name(p->drives[k]);
	}
	throng_behavior_kind kind = THRONG_SEEK;
	if (n->kind == SF_SCALAR && !sf_is_null(n) && strlen(n->text) == n->len &&
	    throng_behavior_kind_from_name(n->text, &kind)) {
		for (uint32_t k = 0; k < p->drive_count; ++k) {
			if (p->drives[k] == kind) {
				*out = kind;
				return true;
			}
		}
		char list[256];
		sf_join(names, p->drive_count, list, sizeof list);
		sf_error(c, n->pos, "got %s, a behaviour that is not a drive of preset %s (expected one of: %s)", n->text,
		         p->name, list);
		return false;
	}
	int w = 0;
	if (!sf_read_enum(c, n, names, p->drive_count, "drive", &w)) {
		return false;
	}
	*out = p->drives[w];
	return true;
}

void sf_read_preset(sf_ctx* c, const sf_node* map, sf_archetype* a)
{
	const sf_node* pn = sf_get(map, "preset");
	const sf_node* dn = sf_get(map, "drive");
	if (pn == NULL) {
		if (dn != NULL) {
			sf_error_at(c, "drive", dn->pos,
			            "given without a preset (expected preset: pedestrian beside it; an archetype with slots "
			            "states its drive as a slot)");
		}
		return;
	}
	const char* names[SF_MAX_PRESETS];
	for (uint32_t k = 0; k < sf_preset_count && k < SF_MAX_PRESETS; ++k) {
		names[k] = sf_presets[k].name;
	}
	int which = -1;
	size_t mark = sf_push_key(c, "preset");
	bool ok = sf_read_enum(c, pn, names, sf_preset_count, "preset", &which);
	sf_pop(c, mark);
	const sf_node* slots = sf_get(map, "slots");
	if (slots != NULL) {
		sf_error_at(c, "slots", slots->pos,
		            "given with a preset, which states the slots (expected preset or slots, not both: to change "
		            "a preset's slots, write them all out without the preset, as throng save does)");
	}
	if (!ok) {
		a->preset_bad = true;
		return;
	}
	const sf_preset* p = &sf_presets[which];
	throng_behavior_kind drive = p->drives[0];
	if (dn != NULL) {
		mark = sf_push_key(c, "drive");
		read_drive(c, dn, p, &drive);
		sf_pop(c, mark);
	}
	a->preset = p;
	a->controller = p->controller(drive);
}

void sf_preset_body(const sf_preset* p, const sf_node* map, sf_group* g)
{
	const throng_agent_def body = p->body();
	if (sf_get(map, "max_speed") == NULL) {
		g->max_speed = body.max_speed;
	}
	if (sf_get(map, "max_force") == NULL) {
		g->max_force = body.max_force;
	}
	if (sf_get(map, "radius") == NULL) {
		g->radius = body.radius;
	}
}
