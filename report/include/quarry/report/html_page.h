//===- html_page.h - A run summary as one self-contained page -*- C++ -*-===//
//
// One HTML file with everything inline: the summary table, a section per
// stage, and SVG plots (counts per stage, rules per operator, proof times,
// the optimizer's before/after). No scripts and no external resources, so
// it opens from a file, offline, and can be mailed; an inline style sheet
// follows the reader's light or dark preference. A stage without results
// says "not run" (or "running").
//
//===----------------------------------------------------------------------===//
#pragma once

#include "quarry/report/run_summary.h"

#include <string>

namespace quarry::report {

/// The page's HTML text.
std::string html_page(const RunSummary &summary);

} // namespace quarry::report
