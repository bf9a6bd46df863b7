// Run-time settings ("knobs"), each declared once next to the code it tunes.
//
// A knob is read from the environment variable of its name the first time it
// is used. Every declared knob registers itself so `strata-info` can list
// name, type, default and documentation. Declare knobs in library code, with
// the name as a string literal: strata-info links every library whole, but a
// knob in a program's main file never reaches its list (its test says so).
#pragma once

#include "base/numbers.hpp"  // parse_size, the reader of a size knob

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace strata::base {

struct KnobInfo {
    std::string name;
    std::string type;  // "int", "size" (an int that takes K/M/G) or "string"
    std::string default_text;
    std::string doc;
};

// All knobs declared in the loaded code, in declaration order.
const std::vector<KnobInfo>& knobs_all();
void knob_register(KnobInfo info);

// What the environment sets for a knob, judged as the knob itself will judge
// it: nullopt when unset (the default applies); `valid` false when the knob
// will ignore the text (not a number of its type) and use its default.
struct KnobSetting {
    std::string text;
    bool valid = true;
};
std::optional<KnobSetting> knob_setting(const KnobInfo& info);

class KnobInt {
public:
    KnobInt(const char* name, std::int64_t def, const char* doc, bool size_suffixes = false);
    std::int64_t get() const;  // the environment's value, or the default if unset or invalid
    const char* name() const { return name_; }

private:
    const char* name_;
    std::int64_t def_;
    bool sizes_;
    mutable std::once_flag once_;
    mutable std::int64_t value_ = 0;
};

class KnobString {
public:
    KnobString(const char* name, const char* def, const char* doc);
    const std::string& get() const;
    const char* name() const { return name_; }

private:
    const char* name_;
    const char* def_;
    mutable std::once_flag once_;
    mutable std::string value_;
};

}  // namespace strata::base
