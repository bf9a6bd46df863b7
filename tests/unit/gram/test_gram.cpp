#include "gram/gram.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

using namespace strata::gram;
using strata::base::wire::FrameSplitter;
using strata::base::wire::RawFrame;
using strata::base::wire::decode;
using strata::base::wire::Writer;
using strata::job::CancelMode;
using strata::job::JobState;
using strata::job::ProcessExit;
using strata::job::Stream;

namespace {

using Bytes = std::vector<std::uint8_t>;

// Splits `frame` with the protocol's own splitter: exactly one frame of type `t`.
Bytes payload_of(const Bytes& frame, Type t) {
    FrameSplitter split = frame_splitter();
    split.feed(frame.data(), frame.size());
    bool bad = true;
    std::optional<RawFrame> f = split.next(bad);
    REQUIRE_FALSE(bad);
    REQUIRE(f);
    CHECK(f->type == static_cast<std::uint8_t>(t));
    CHECK(f->payload.size() + 5 == frame.size());
    CHECK_FALSE(split.next(bad));
    CHECK_FALSE(bad);
    return f->payload;
}

// Payload bytes written by hand (for values encode() never produces).
template <class Fill>
Bytes handmade(Fill fill) {
    Writer w;
    fill(w);
    return w.out();
}

Bytes header(std::uint32_t len, std::uint8_t type) {
    return {static_cast<std::uint8_t>(len), static_cast<std::uint8_t>(len >> 8), static_cast<std::uint8_t>(len >> 16),
            static_cast<std::uint8_t>(len >> 24), type};
}

// Every strict prefix of `payload` and `payload` plus one byte fail to decode;
// `payload` itself decodes.
template <class Decode>
void check_exact_length(const Bytes& payload, Decode decode) {
    REQUIRE(decode(payload));
    for (std::size_t n = 0; n < payload.size(); ++n) {
        INFO("truncated to " << n << " of " << payload.size() << " bytes");
        CHECK_FALSE(decode(Bytes(payload.begin(), payload.begin() + static_cast<std::ptrdiff_t>(n))));
    }
    Bytes longer = payload;
    longer.push_back(0);
    CHECK_FALSE(decode(longer));
    longer.back() = 0xff;
    CHECK_FALSE(decode(longer));
}

Submit sample_submit() {
    Submit m;
    m.subjob = 3;
    m.first_rank = 0x01020304;
    m.count = 17;
    m.adapter = "slurm";
    m.account = "guest";
    m.command.program = "/home/jane/bin/ring";
    m.command.args = {"-n", "", std::string("nul\0inside", 10), "last arg"};
    m.command.env = {{"STRATA_JOB", "abc"}, {"EMPTY", ""}, {"BIN", std::string("\x01\xff", 2)}};
    m.command.directory = "/home/jane/run";
    m.command.stdin_file = "in.txt";
    m.command.stdout_file = "/home/jane/out";
    m.command.stderr_file = "err.txt";
    m.has_stdin = true;
    m.batch = {"short", "phys-123", 90, 4, 2048};
    m.relay = true;
    m.hub_port = 40123;
    return m;
}

}  // namespace

TEST_CASE("gram: Submit round trip", "[gram]") {
    const Submit m = sample_submit();
    auto d = decode<Submit>(payload_of(encode(m), Type::submit));
    REQUIRE(d);
    CHECK(d->subjob == 3);
    CHECK(d->first_rank == 0x01020304);
    CHECK(d->count == 17);
    CHECK(d->adapter == "slurm");
    CHECK(d->account == "guest");
    CHECK(d->command.program == "/home/jane/bin/ring");
    CHECK(d->command.args == m.command.args);
    CHECK(d->command.args[2].size() == 10);
    CHECK(d->command.env == m.command.env);
    CHECK(d->command.directory == "/home/jane/run");
    CHECK(d->command == m.command);  // the stdin, stdout and stderr files too
    CHECK(d->has_stdin);
    CHECK(d->batch == m.batch);
    CHECK(d->batch.max_wall_time_min == 90);
    CHECK(d->relay);
    CHECK(d->hub_port == 40123);

    // The smallest Submit: no args, env, account or directory, no stdin.
    Submit small;
    small.count = 1;
    small.adapter = "fork";
    small.command.program = "a.out";
    auto s = decode<Submit>(payload_of(encode(small), Type::submit));
    REQUIRE(s);
    CHECK(s->subjob == 0);
    CHECK(s->first_rank == 0);
    CHECK(s->count == 1);
    CHECK(s->adapter == "fork");
    CHECK(s->account.empty());
    CHECK(s->command.program == "a.out");
    CHECK(s->command.args.empty());
    CHECK(s->command.env.empty());
    CHECK(s->command.directory.empty());
    CHECK_FALSE(s->has_stdin);
    CHECK_FALSE(s->relay);
}

TEST_CASE("gram: State round trip for every state", "[gram]") {
    for (JobState st : {JobState::pending, JobState::active, JobState::done, JobState::failed}) {
        State m;
        m.state = st;
        m.detail = std::string("state ") + strata::job::job_state_name(st);
        auto d = decode<State>(payload_of(encode(m), Type::state));
        REQUIRE(d);
        CHECK(d->state == st);
        CHECK(d->detail == m.detail);
    }
    State bare;
    bare.state = JobState::done;
    auto d = decode<State>(payload_of(encode(bare), Type::state));
    REQUIRE(d);
    CHECK(d->state == JobState::done);
    CHECK(d->detail.empty());
}

TEST_CASE("gram: Started and StartFailed round trip", "[gram]") {
    Started m;
    m.rank = 0xfffffffe;
    m.pid = 4194303;
    auto d = decode<Started>(payload_of(encode(m), Type::started));
    REQUIRE(d);
    CHECK(d->rank == 0xfffffffe);
    CHECK(d->pid == 4194303);

    StartFailed f;
    f.rank = 12;
    f.reason = "cannot execute /home/jane/bin/ring: Permission denied";
    auto e = decode<StartFailed>(payload_of(encode(f), Type::start_failed));
    REQUIRE(e);
    CHECK(e->rank == 12);
    CHECK(e->reason == f.reason);
}

TEST_CASE("gram: Output and OutputClosed round trip on both streams, binary bytes intact", "[gram]") {
    std::string binary;
    for (int i = 0; i < 256; ++i) binary.push_back(static_cast<char>(i));
    binary += std::string("\0\0end\0", 6);
    for (Stream s : {Stream::out, Stream::err}) {
        Output m;
        m.rank = 5;
        m.stream = s;
        m.bytes = binary;
        auto d = decode<Output>(payload_of(encode(m), Type::output));
        REQUIRE(d);
        CHECK(d->rank == 5);
        CHECK(d->stream == s);
        CHECK(d->bytes.size() == 262);
        CHECK(d->bytes == binary);

        OutputClosed c;
        c.rank = 6;
        c.stream = s;
        auto e = decode<OutputClosed>(payload_of(encode(c), Type::output_closed));
        REQUIRE(e);
        CHECK(e->rank == 6);
        CHECK(e->stream == s);
    }
    Output empty;
    empty.stream = Stream::err;
    auto d = decode<Output>(payload_of(encode(empty), Type::output));
    REQUIRE(d);
    CHECK(d->stream == Stream::err);
    CHECK(d->bytes.empty());
}

TEST_CASE("gram: Exited round trip, exited and signaled", "[gram]") {
    Exited m;
    m.rank = 2;
    m.pid = 31337;
    m.how = ProcessExit{false, 255};
    auto d = decode<Exited>(payload_of(encode(m), Type::exited));
    REQUIRE(d);
    CHECK(d->rank == 2);
    CHECK(d->pid == 31337);
    CHECK_FALSE(d->how.signaled);
    CHECK(d->how.value == 255);

    m.how = ProcessExit{true, 9};
    auto k = decode<Exited>(payload_of(encode(m), Type::exited));
    REQUIRE(k);
    CHECK(k->how.signaled);
    CHECK(k->how.value == 9);

    m.how = ProcessExit{false, 0};
    auto ok = decode<Exited>(payload_of(encode(m), Type::exited));
    REQUIRE(ok);
    CHECK(ok->how.success());
}

TEST_CASE("gram: Cancel, Stdin and StdinClosed round trip", "[gram]") {
    for (CancelMode mode : {CancelMode::terminate, CancelMode::kill}) {
        Cancel m;
        m.mode = mode;
        auto d = decode<Cancel>(payload_of(encode(m), Type::cancel));
        REQUIRE(d);
        CHECK(d->mode == mode);
    }

    const std::string data("line 1\n\0\xff\x80 line 2", 17);
    auto s = decode<Stdin>(payload_of(encode(Stdin{data}), Type::stdin_data));
    REQUIRE(s);
    CHECK(s->bytes == data);
    auto none = decode<Stdin>(payload_of(encode(Stdin{}), Type::stdin_data));
    REQUIRE(none);
    CHECK(none->bytes.empty());

    const Bytes closed = encode_stdin_closed();
    CHECK(closed == header(0, static_cast<std::uint8_t>(Type::stdin_closed)));
    CHECK(payload_of(closed, Type::stdin_closed).empty());
}

TEST_CASE("gram: truncated payloads and trailing bytes are refused", "[gram]") {
    check_exact_length(payload_of(encode(sample_submit()), Type::submit), decode<Submit>);
    State st;
    st.state = JobState::failed;
    st.detail = "why";
    check_exact_length(payload_of(encode(st), Type::state), decode<State>);
    check_exact_length(payload_of(encode(Started{7, 8}), Type::started), decode<Started>);
    check_exact_length(payload_of(encode(StartFailed{7, "no"}), Type::start_failed), decode<StartFailed>);
    check_exact_length(payload_of(encode(Output{1, Stream::err, std::string("a\0b", 3)}), Type::output),
                       decode<Output>);
    check_exact_length(payload_of(encode(OutputClosed{1, Stream::err}), Type::output_closed), decode<OutputClosed>);
    check_exact_length(payload_of(encode(Exited{1, 2, ProcessExit{true, 15}}), Type::exited), decode<Exited>);
    check_exact_length(payload_of(encode(Cancel{CancelMode::kill}), Type::cancel), decode<Cancel>);
    check_exact_length(payload_of(encode(Stdin{"abc"}), Type::stdin_data), decode<Stdin>);
    check_exact_length(payload_of(encode(Stdin{}), Type::stdin_data), decode<Stdin>);
}

TEST_CASE("gram: a string or list length beyond the payload is refused", "[gram]") {
    CHECK_FALSE(decode<Stdin>(handmade([](Writer& w) { w.u32(4); })));
    CHECK_FALSE(decode<Stdin>(handmade([](Writer& w) { w.u32(0xffffffff); })));
    CHECK_FALSE(decode<StartFailed>(handmade([](Writer& w) {
        w.u32(1);
        w.u32(0xfffffff0);
        w.u32(0);
    })));
    // A Submit claiming four billion args.
    const auto billions = decode<Submit>(handmade([](Writer& w) {
        w.u32(0);
        w.u32(0);
        w.u32(1);
        w.str("fork");
        w.str("");
        w.str("a.out");
        w.u32(0xffffffff);
        w.u32(0);
        w.str("");
        w.u32(0);
    }));
    REQUIRE_FALSE(billions);
    CHECK(billions.error().starts_with("'command': 'args': "));
}

TEST_CASE("gram: enumerations out of range are refused", "[gram]") {
    auto state = [](std::uint32_t v) {
        return decode<State>(handmade([&](Writer& w) {
            w.u32(v);
            w.str("x");
        }));
    };
    REQUIRE(state(3));
    CHECK(state(3)->state == JobState::failed);
    CHECK_FALSE(state(4));
    CHECK_FALSE(state(0xffffffff));

    auto output = [](std::uint32_t v) {
        return decode<Output>(handmade([&](Writer& w) {
            w.u32(0);
            w.u32(v);
            w.str("x");
        }));
    };
    REQUIRE(output(1));
    CHECK(output(1)->stream == Stream::err);
    CHECK_FALSE(output(2));

    auto closed = [](std::uint32_t v) {
        return decode<OutputClosed>(handmade([&](Writer& w) {
            w.u32(0);
            w.u32(v);
        }));
    };
    REQUIRE(closed(1));
    CHECK(closed(1)->stream == Stream::err);
    CHECK_FALSE(closed(2));

    auto cancel = [](std::uint32_t v) { return decode<Cancel>(handmade([&](Writer& w) { w.u32(v); })); };
    REQUIRE(cancel(1));
    CHECK(cancel(1)->mode == CancelMode::kill);
    CHECK_FALSE(cancel(2));

    auto exited = [](std::uint32_t signaled, std::uint32_t value) {
        return decode<Exited>(handmade([&](Writer& w) {
            w.u32(0);
            w.u32(1);
            w.u32(signaled);
            w.u32(value);
        }));
    };
    REQUIRE(exited(1, 255));
    CHECK(exited(1, 255)->how.signaled);
    CHECK(exited(1, 255)->how.value == 255);
    CHECK_FALSE(exited(2, 0));
    CHECK_FALSE(exited(0, 256));
    CHECK_FALSE(exited(0, 0xffffffff));
}

TEST_CASE("gram: a Submit must name a program, at least one rank, and stdin as 0 or 1", "[gram]") {
    auto submit = [](std::uint32_t count, const std::string& program, std::uint32_t has_stdin) {
        return decode<Submit>(handmade([&](Writer& w) {
            w.u32(0);
            w.u32(0);
            w.u32(count);
            w.str("fork");
            w.str("");
            w.str(program);
            w.u32(0);   // no args
            w.u32(0);   // no environment
            w.str("");  // directory
            w.str("");  // stdin file
            w.str("");  // stdout file
            w.str("");  // stderr file
            w.u32(has_stdin);
            w.u32(0);  // no staged files
            w.u32(0);
            w.str("none");  // delegation
            w.str("");      // queue
            w.str("");      // project
            w.u32(0);       // wall time
            w.u32(0);       // hosts
            w.u32(0);       // memory
            w.u32(0);       // no relay
            w.u32(0);       // no hub
        }));
    };
    REQUIRE(submit(1, "a.out", 1));
    CHECK(submit(1, "a.out", 1)->has_stdin);
    REQUIRE(submit(1, "a.out", 0));
    CHECK_FALSE(submit(1, "a.out", 0)->has_stdin);
    CHECK_FALSE(submit(0, "a.out", 0));
    CHECK_FALSE(submit(1, "", 0));
    CHECK_FALSE(submit(1, "a.out", 2));

    Submit none = sample_submit();
    none.count = 0;
    CHECK_FALSE(decode<Submit>(payload_of(encode(none), Type::submit)));
    Submit nameless = sample_submit();
    nameless.command.program.clear();
    CHECK_FALSE(decode<Submit>(payload_of(encode(nameless), Type::submit)));
}

TEST_CASE("gram: staged files travel with the Submit and their names are plain", "[gram]") {
    Submit m = sample_submit();
    const std::string hash(64, 'a');
    m.stage = {{"ring", 0755, 123456, hash}, {"input.dat", 0644, 0, std::string(64, '0')}};
    m.stage_program = true;
    auto d = decode<Submit>(payload_of(encode(m), Type::submit));
    REQUIRE(d);
    REQUIRE(d->stage.size() == 2);
    CHECK((d->stage[0].name == "ring" && d->stage[0].mode == 0755 && d->stage[0].size == 123456));
    CHECK(d->stage[0].sha256 == hash);
    CHECK((d->stage[1].name == "input.dat" && d->stage[1].size == 0));
    CHECK(d->stage_program);

    auto with = [&](std::vector<StagedFile> files, bool program) {
        Submit s = sample_submit();
        s.stage = std::move(files);
        s.stage_program = program;
        return decode<Submit>(payload_of(encode(s), Type::submit)).ok();
    };
    CHECK(with({}, false));
    CHECK_FALSE(with({}, true));  // the program staged, but no file
    for (const char* bad : {"", ".", "..", "a/b", "/etc/passwd"}) {
        INFO(bad);
        CHECK_FALSE(with({{bad, 0644, 1, hash}}, false));
    }
    CHECK_FALSE(with({{std::string(256, 'x'), 0644, 1, hash}}, false));
    CHECK(with({{std::string(255, 'x'), 0644, 1, hash}}, false));
    CHECK_FALSE(with({{"a", 0644, 1, hash}, {"a", 0644, 2, hash}}, false));  // twice the same name
    CHECK_FALSE(with({{"a", 010000, 1, hash}}, false));                     // not a permission mode
    CHECK_FALSE(with({{"a", 0644, 1, std::string(63, 'a')}}, false));       // not a SHA-256

    CHECK(staged_name_valid("..."));
    CHECK_FALSE(staged_name_valid(std::string("a\0b", 3)));

    const auto data = decode<StageData>(payload_of(encode(StageData{std::string("x\0y", 3)}), Type::stage_data));
    REQUIRE(data);
    CHECK(data->bytes == std::string("x\0y", 3));
}

TEST_CASE("gram: the splitter refuses a bad header before its payload arrives", "[gram]") {
    auto refused_after_header = [](std::uint32_t len, std::uint8_t type) {
        FrameSplitter split = frame_splitter();
        const Bytes h = header(len, type);
        bool bad = true;
        split.feed(h.data(), 4);
        CHECK_FALSE(split.next(bad));
        CHECK_FALSE(bad);  // not judged on four bytes
        split.feed(h.data() + 4, 1);
        CHECK_FALSE(split.next(bad));
        return bad;
    };
    CHECK(refused_after_header(0, 0));
    CHECK(refused_after_header(4, 15));  // one past the last type, Hello
    CHECK(refused_after_header(4, 0xff));
    CHECK(refused_after_header(kMaxFrame + 1, static_cast<std::uint8_t>(Type::output)));
    CHECK(refused_after_header(0xffffffff, static_cast<std::uint8_t>(Type::submit)));
    // The edges of the ranges are accepted: the splitter waits for the payload.
    CHECK_FALSE(refused_after_header(kMaxFrame, static_cast<std::uint8_t>(Type::output)));
    CHECK_FALSE(refused_after_header(8, static_cast<std::uint8_t>(Type::submit)));
    CHECK_FALSE(refused_after_header(4, static_cast<std::uint8_t>(Type::cancel)));
    CHECK_FALSE(refused_after_header(4, static_cast<std::uint8_t>(Type::stage_data)));
}

TEST_CASE("gram: the splitter delivers frames fed one byte at a time", "[gram]") {
    Bytes stream;
    auto append = [&](const Bytes& f) { stream.insert(stream.end(), f.begin(), f.end()); };
    append(encode(sample_submit()));
    append(encode(State{JobState::active, "running"}));
    append(encode(Output{0, Stream::out, std::string("hi\0", 3)}));
    append(encode_stdin_closed());
    append(encode(Exited{0, 99, ProcessExit{false, 3}}));
    append(encode(Cancel{CancelMode::terminate}));

    FrameSplitter split = frame_splitter();
    std::vector<RawFrame> got;
    bool bad = false;
    for (std::uint8_t byte : stream) {
        split.feed(&byte, 1);
        while (auto f = split.next(bad)) got.push_back(std::move(*f));
        REQUIRE_FALSE(bad);
    }
    REQUIRE(got.size() == 6);
    CHECK(got[0].type == static_cast<std::uint8_t>(Type::submit));
    auto submit = decode<Submit>(got[0].payload);
    REQUIRE(submit);
    CHECK(submit->command.args == sample_submit().command.args);
    CHECK(got[1].type == static_cast<std::uint8_t>(Type::state));
    auto state = decode<State>(got[1].payload);
    REQUIRE(state);
    CHECK(state->state == JobState::active);
    CHECK(state->detail == "running");
    CHECK(got[2].type == static_cast<std::uint8_t>(Type::output));
    auto output = decode<Output>(got[2].payload);
    REQUIRE(output);
    CHECK(output->bytes == std::string("hi\0", 3));
    CHECK(got[3].type == static_cast<std::uint8_t>(Type::stdin_closed));
    CHECK(got[3].payload.empty());
    CHECK(got[4].type == static_cast<std::uint8_t>(Type::exited));
    auto exited = decode<Exited>(got[4].payload);
    REQUIRE(exited);
    CHECK(exited->pid == 99);
    CHECK(exited->how.value == 3);
    CHECK(got[5].type == static_cast<std::uint8_t>(Type::cancel));
    auto cancel = decode<Cancel>(got[5].payload);
    REQUIRE(cancel);
    CHECK(cancel->mode == CancelMode::terminate);
    CHECK_FALSE(split.next(bad));
    CHECK_FALSE(bad);
}

TEST_CASE("gram: delegation travels in the Submit and in its own messages", "[gram]") {
    for (const char* mode : {"none", "limited", "full"}) {
        Submit m = sample_submit();
        m.delegation = mode;
        auto d = decode<Submit>(payload_of(encode(m), Type::submit));
        REQUIRE(d);
        CHECK(d->delegation == mode);
    }
    Submit bad = sample_submit();
    bad.delegation = "sometimes";
    CHECK_FALSE(decode<Submit>(payload_of(encode(bad), Type::submit)));

    const std::string pub = "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n";
    auto rq = decode<DelegationRequest>(payload_of(encode(DelegationRequest{pub}), Type::delegation_request));
    REQUIRE(rq);
    CHECK(rq->public_key_pem == pub);
    check_exact_length(payload_of(encode(DelegationRequest{pub}), Type::delegation_request),
                       [](const Bytes& p) { return decode<DelegationRequest>(p).ok(); });
    auto dg = decode<Delegation>(payload_of(encode(Delegation{"certs"}), Type::delegation));
    REQUIRE(dg);
    CHECK(dg->certificates_pem == "certs");
    // Empty ones say nothing and are refused.
    CHECK_FALSE(decode<DelegationRequest>(payload_of(encode(DelegationRequest{}), Type::delegation_request)));
    CHECK_FALSE(decode<Delegation>(payload_of(encode(Delegation{}), Type::delegation)));
}

TEST_CASE("gram: Hello carries the version, and an empty one is malformed", "[gram]") {
    const Bytes p = payload_of(encode(Hello{version()}), Type::hello);
    auto m = decode<Hello>(p);
    REQUIRE(m);
    CHECK(m->version == version());
    CHECK(std::string(version()).find('.') != std::string::npos);
    CHECK_FALSE(decode<Hello>(payload_of(encode(Hello{""}), Type::hello)));
    Bytes trailing = p;
    trailing.push_back(0);
    CHECK_FALSE(decode<Hello>(trailing));
}

TEST_CASE("gram: a Submit's wall time is at most a year", "[gram]") {
    Submit m;
    m.count = 1;
    m.adapter = "slurm";
    m.command.program = "a.out";
    m.batch.max_wall_time_min = strata::job::kMaxWallTimeMin;
    CHECK(decode<Submit>(payload_of(encode(m), Type::submit)));
    m.batch.max_wall_time_min = strata::job::kMaxWallTimeMin + 1;
    CHECK_FALSE(decode<Submit>(payload_of(encode(m), Type::submit)));
}

TEST_CASE("gram: a Submit's hosts are at most its processes, its memory at most kMaxMemoryMb", "[gram]") {
    Submit m;
    m.count = 3;
    m.adapter = "slurm";
    m.command.program = "a.out";
    m.batch.host_count = 3;
    m.batch.memory_mb = strata::job::kMaxMemoryMb;
    CHECK(decode<Submit>(payload_of(encode(m), Type::submit)));
    m.batch.host_count = 4;
    CHECK_FALSE(decode<Submit>(payload_of(encode(m), Type::submit)));
    m.batch.host_count = 3;
    m.batch.memory_mb = strata::job::kMaxMemoryMb + 1;
    CHECK_FALSE(decode<Submit>(payload_of(encode(m), Type::submit)));
}
