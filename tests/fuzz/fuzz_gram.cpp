// What a gatekeeper reads from a client and mpirun from a gatekeeper: the
// frame splitter, then every decoder on every frame it yields.
#include "gram/gram.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace strata::gram;
    auto split = frame_splitter(64 * 1024);
    // Fed in two pieces, as a stream arrives.
    split.feed(data, size / 2);
    split.feed(data + size / 2, size - size / 2);
    bool bad = false;
    while (auto f = split.next(bad)) {
        (void)decode_hello(f->payload);
        (void)decode_submit(f->payload);
        (void)decode_state(f->payload);
        (void)decode_started(f->payload);
        (void)decode_start_failed(f->payload);
        (void)decode_output(f->payload);
        (void)decode_output_closed(f->payload);
        (void)decode_exited(f->payload);
        (void)decode_cancel(f->payload);
        (void)decode_stdin(f->payload);
        (void)decode_stage_data(f->payload);
        (void)decode_delegation_request(f->payload);
        (void)decode_delegation(f->payload);
    }
    return 0;
}
