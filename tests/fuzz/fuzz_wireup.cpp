// What mpirun reads on its control port (anyone may connect) and a process
// reads from mpirun: the frame reader, then every decoder.
#include "wireup/protocol.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace strata::wireup;
    using strata::base::wire::decode;
    FrameReader reader;
    reader.feed(data, size / 2);
    reader.feed(data + size / 2, size - size / 2);
    bool bad = false;
    while (auto f = reader.next(bad)) {
        (void)decode<Hello>(f->payload);
        (void)decode<Challenge>(f->payload);
        (void)decode<Checkin>(f->payload);
        (void)decode<Release>(f->payload);
        (void)decode<Abort>(f->payload);
        (void)decode<Names>(f->payload);
        (void)decode<NamesReply>(f->payload);
    }
    return 0;
}
