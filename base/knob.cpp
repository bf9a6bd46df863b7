#include "base/knob.hpp"

#include <cstdio>
#include <cstdlib>

namespace strata::base {

namespace {
std::vector<KnobInfo>& registry() {
    static std::vector<KnobInfo> all;
    return all;
}

// An integer knob's text: optionally negative, K/M/G only where `sizes`.
std::optional<std::int64_t> int_parse(std::string_view text, bool sizes) {
    if (!sizes) return parse_int<std::int64_t>(text).as_optional();
    const bool negative = text.starts_with('-');
    if (negative) text.remove_prefix(1);
    const std::optional<std::int64_t> size = parse_size(text);
    if (!size) return std::nullopt;
    return negative ? -*size : *size;
}
}  // namespace

const std::vector<KnobInfo>& knobs_all() { return registry(); }

void knob_register(KnobInfo info) { registry().push_back(std::move(info)); }

std::optional<KnobSetting> knob_setting(const KnobInfo& info) {
    const char* env = std::getenv(info.name.c_str());
    if (env == nullptr) return std::nullopt;
    if (info.type == "string") return KnobSetting{env, true};
    // KnobInt::get treats an empty value as unset.
    if (*env == '\0') return std::nullopt;
    return KnobSetting{env, int_parse(env, info.type == "size").has_value()};
}

KnobInt::KnobInt(const char* name, std::int64_t def, const char* doc, bool size_suffixes)
    : name_(name), def_(def), sizes_(size_suffixes) {
    knob_register({name, size_suffixes ? "size" : "int", std::to_string(def), doc});
}

std::int64_t KnobInt::get() const {
    std::call_once(once_, [this] {
        value_ = def_;
        const char* env = std::getenv(name_);
        if (env == nullptr || *env == '\0') return;
        if (const std::optional<std::int64_t> parsed = int_parse(env, sizes_)) {
            value_ = *parsed;
        } else {
            std::fprintf(stderr, "strata: ignoring %s=%s (not a valid %s); using %lld\n", name_, env,
                         sizes_ ? "size such as 64K" : "integer", static_cast<long long>(def_));
        }
    });
    return value_;
}

KnobString::KnobString(const char* name, const char* def, const char* doc) : name_(name), def_(def) {
    knob_register({name, "string", def, doc});
}

const std::string& KnobString::get() const {
    std::call_once(once_, [this] {
        const char* env = std::getenv(name_);
        value_ = (env != nullptr) ? env : def_;
    });
    return value_;
}

}  // namespace strata::base
