// SPDX-License-Identifier: MIT
// The help texts of `throng` and its commands: what --help prints, and
// what a usage error shows (cli/usage.c).
#ifndef THRONG_CLI_USAGE_H
#define THRONG_CLI_USAGE_H

extern const char cli_usage_main[]; ///< throng --help
extern const char cli_usage_run[];  ///< throng run --help, first part
/// The rest of throng run --help (one literal would pass the 4095
/// characters C promises).
extern const char cli_usage_run_more[];
extern const char cli_usage_list[]; ///< throng list --help
extern const char cli_usage_save[]; ///< throng save --help

#endif
