// What mpirun reads on its control port (anyone may connect) and a process
// reads from mpirun: the frame reader, then every decoder.
#include "wireup/protocol.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace strata::wireup;
    FrameReader reader;
    reader.feed(data, size / 2);
    reader.feed(data + size / 2, size - size / 2);
    bool bad = false;
    while (auto f = reader.next(bad)) {
        (void)decode_hello(f->payload);
        (void)decode_challenge(f->payload);
        (void)decode_checkin(f->payload);
        (void)decode_release(f->payload);
        (void)decode_abort(f->payload);
        (void)decode_names(f->payload);
        (void)decode_names_reply(f->payload);
    }
    return 0;
}
