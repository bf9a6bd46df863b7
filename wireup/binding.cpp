#include "wireup/binding.hpp"

#include "base/knob.hpp"

namespace strata::wireup {

namespace {

const base::KnobString bind_to{kBindTo.variable, "",
                               "core, socket or none: what each rank binds to in MPI_Init; empty: a core when the "
                               "host's ranks fit its allowed cores, else no binding"};

struct ModeName {
    const char* name;
    BindTo mode;
};
constexpr ModeName kModes[] = {{"core", BindTo::core}, {"socket", BindTo::socket}, {"none", BindTo::none}};

}  // namespace

base::Result<BindTo> bind_to_parse(const std::string& text) {
    for (const ModeName& m : kModes)
        if (text == m.name) return m.mode;
    return base::Error{"'" + text + "' is not a binding; expected " + std::string(kBindTo.expects)};
}

base::Result<BindTo> bind_to_setting() {
    if (bind_to.get().empty()) return BindTo::automatic;
    base::Result<BindTo> mode = bind_to_parse(bind_to.get());
    if (!mode) return base::Error{setting_fault(kBindTo, bind_to.get())};
    return mode;
}

}  // namespace strata::wireup
