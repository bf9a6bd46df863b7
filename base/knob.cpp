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
std::optional<std::int64_t> int_parse(std::string text, bool sizes) {
    const bool negative = !text.empty() && text[0] == '-';
    if (negative) text.erase(0, 1);
    if (!sizes && text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    const std::optional<std::int64_t> parsed = parse_size(text);
    if (!parsed) return std::nullopt;
    return negative ? -*parsed : *parsed;
}
}  // namespace

const std::vector<KnobInfo>& knobs_all() { return registry(); }

void knob_register(KnobInfo info) { registry().push_back(std::move(info)); }

std::optional<std::int64_t> parse_size(const std::string& text) {
    if (text.empty()) return std::nullopt;
    std::size_t pos = 0;
    std::int64_t value = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
        if (value > (INT64_MAX - 9) / 10) return std::nullopt;
        value = value * 10 + (text[pos] - '0');
        ++pos;
    }
    if (pos == 0) return std::nullopt;
    if (pos == text.size()) return value;
    if (pos + 1 != text.size()) return std::nullopt;
    int shift = 0;
    switch (text[pos]) {
        case 'k': case 'K': shift = 10; break;
        case 'm': case 'M': shift = 20; break;
        case 'g': case 'G': shift = 30; break;
        default: return std::nullopt;
    }
    if (value > (INT64_MAX >> shift)) return std::nullopt;
    return value << shift;
}

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
