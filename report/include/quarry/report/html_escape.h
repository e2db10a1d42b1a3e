//===- html_escape.h - Text safe inside HTML and SVG ----------*- C++ -*-===//
//
// Every piece of text a report page shows comes from files (rule, axiom and
// model names, paths); all of it goes through escape_html so that no name
// can open a tag or end an attribute.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <string_view>

namespace quarry::report {

/// `text` with & < > " ' replaced by character references.
std::string escape_html(std::string_view text);

} // namespace quarry::report
