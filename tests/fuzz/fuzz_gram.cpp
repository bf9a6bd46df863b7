// What a gatekeeper reads from a client and mpirun from a gatekeeper: the
// frame splitter, then every decoder on every frame it yields.
#include "gram/gram.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace strata::gram;
    using strata::base::wire::decode;
    auto split = frame_splitter(64 * 1024);
    // Fed in two pieces, as a stream arrives.
    split.feed(data, size / 2);
    split.feed(data + size / 2, size - size / 2);
    bool bad = false;
    while (auto f = split.next(bad)) {
        (void)decode<Hello>(f->payload);
        (void)decode<Submit>(f->payload);
        (void)decode<State>(f->payload);
        (void)decode<Started>(f->payload);
        (void)decode<StartFailed>(f->payload);
        (void)decode<Output>(f->payload);
        (void)decode<OutputClosed>(f->payload);
        (void)decode<Exited>(f->payload);
        (void)decode<Cancel>(f->payload);
        (void)decode<Stdin>(f->payload);
        (void)decode<StageData>(f->payload);
        (void)decode<DelegationRequest>(f->payload);
        (void)decode<Delegation>(f->payload);
    }
    return 0;
}
