#include "job/adapter_table.hpp"

#include <vector>

namespace strata::job {

namespace {

constexpr std::string_view kServicePrefix = "jobmanager-";

}  // namespace

const AdapterInfo& adapter_info(AdapterKind kind) {
    for (const AdapterInfo& a : kAdapterTable)
        if (a.kind == kind) return a;
    return kAdapterTable[0];
}

const char* adapter_name(AdapterKind kind) { return adapter_info(kind).name; }

const AdapterInfo* adapter_find(std::string_view name) {
    for (const AdapterInfo& a : kAdapterTable)
        if (name == a.name) return &a;
    return nullptr;
}

const AdapterInfo* adapter_find_service(std::string_view service) {
    if (service == "jobmanager") {
        for (const AdapterInfo& a : kAdapterTable)
            if (a.globus_default) return &a;
        return nullptr;
    }
    if (service.starts_with(kServicePrefix)) service.remove_prefix(kServicePrefix.size());
    return adapter_find(service);
}

std::string adapter_names_text(bool services) {
    std::vector<std::string> names;
    for (const AdapterInfo& a : kAdapterTable) names.emplace_back(a.name);
    if (services)
        for (const AdapterInfo& a : kAdapterTable) names.push_back(std::string(kServicePrefix) + a.name);
    std::string text;
    for (std::size_t i = 0; i < names.size(); ++i)
        text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    return text;
}

}  // namespace strata::job
