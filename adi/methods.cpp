#include "adi/methods.hpp"

#include "devices/self/self_method.hpp"
#include "devices/tcp/tcp_method.hpp"

namespace strata::adi {

namespace {
const MethodEntry kTable[] = {
    {"self", &dev::self::create, true},
    {"tcp", &dev::tcp::create, false},
};
}  // namespace

std::span<const MethodEntry> method_table() { return kTable; }

std::vector<std::unique_ptr<Method>> methods_create(const MethodContext& ctx) {
    std::vector<std::unique_ptr<Method>> out;
    for (const MethodEntry& e : kTable) {
        if (ctx.size > 1 || e.needed_alone) out.push_back(e.create(ctx));
    }
    return out;
}

}  // namespace strata::adi
