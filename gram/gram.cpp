#include "gram/gram.hpp"

namespace strata::gram {

namespace {

using job::CancelMode;
using job::JobState;
using job::Stream;

codec::Writer writer(Type t) { return codec::Writer(static_cast<std::uint8_t>(t)); }

// Small enumerations travel as u32; anything out of range fails the decode.
template <class E>
bool enum_from(std::uint32_t v, E last, E& out) {
    if (v > static_cast<std::uint32_t>(last)) return false;
    out = static_cast<E>(v);
    return true;
}

template <class T>
std::optional<T> finish(const codec::Reader& r, bool valid, T&& m) {
    if (!r.done() || !valid) return std::nullopt;
    return std::move(m);
}

}  // namespace

const char* version() { return STRATA_VERSION; }

std::vector<std::uint8_t> encode(const Hello& m) {
    auto w = writer(Type::hello);
    w.str(m.version);
    return w.finish();
}

std::optional<Hello> decode_hello(const std::vector<std::uint8_t>& payload) {
    codec::Reader r(payload);
    Hello m;
    m.version = r.str();
    return finish(r, !m.version.empty(), std::move(m));
}

std::vector<std::uint8_t> encode(const Submit& m) {
    auto w = writer(Type::submit);
    w.u32(m.subjob);
    w.u32(m.first_rank);
    w.u32(m.count);
    w.str(m.adapter);
    w.str(m.account);
    w.str(m.command.program);
    w.strings(m.command.args);
    w.pairs(m.command.env);
    w.str(m.command.directory);
    w.u32(m.has_stdin ? 1 : 0);
    w.u32(static_cast<std::uint32_t>(m.stage.size()));
    for (const StagedFile& f : m.stage) {
        w.str(f.name);
        w.u32(f.mode);
        w.u32(f.size);
        w.str(f.sha256);
    }
    w.u32(m.stage_program ? 1 : 0);
    w.str(m.delegation);
    w.str(m.batch.queue);
    w.str(m.batch.project);
    w.u32(static_cast<std::uint32_t>(m.batch.max_wall_time_min));
    w.u32(static_cast<std::uint32_t>(m.batch.host_count));
    w.u32(static_cast<std::uint32_t>(m.batch.memory_mb));
    w.str(m.command.stdin_file);
    w.str(m.command.stdout_file);
    w.str(m.command.stderr_file);
    w.u32(m.relay ? 1 : 0);
    w.u32(m.hub_port);
    return w.finish();
}

std::vector<std::uint8_t> encode(const State& m) {
    auto w = writer(Type::state);
    w.u32(static_cast<std::uint32_t>(m.state));
    w.str(m.detail);
    return w.finish();
}

std::vector<std::uint8_t> encode(const Started& m) {
    auto w = writer(Type::started);
    w.u32(m.rank);
    w.u32(m.pid);
    return w.finish();
}

std::vector<std::uint8_t> encode(const StartFailed& m) {
    auto w = writer(Type::start_failed);
    w.u32(m.rank);
    w.str(m.reason);
    return w.finish();
}

std::vector<std::uint8_t> encode(const Output& m) {
    auto w = writer(Type::output);
    w.u32(m.rank);
    w.u32(static_cast<std::uint32_t>(m.stream));
    w.str(m.bytes);
    return w.finish();
}

std::vector<std::uint8_t> encode(const OutputClosed& m) {
    auto w = writer(Type::output_closed);
    w.u32(m.rank);
    w.u32(static_cast<std::uint32_t>(m.stream));
    return w.finish();
}

std::vector<std::uint8_t> encode(const Exited& m) {
    auto w = writer(Type::exited);
    w.u32(m.rank);
    w.u32(m.pid);
    w.u32(m.how.signaled ? 1 : 0);
    w.u32(static_cast<std::uint32_t>(m.how.value));
    return w.finish();
}

std::vector<std::uint8_t> encode(const Cancel& m) {
    auto w = writer(Type::cancel);
    w.u32(static_cast<std::uint32_t>(m.mode));
    return w.finish();
}

std::vector<std::uint8_t> encode_stdin(const char* data, std::size_t n) {
    auto w = writer(Type::stdin_data);
    w.bytes(data, n);
    return w.finish();
}

std::vector<std::uint8_t> encode_stdin_closed() { return writer(Type::stdin_closed).finish(); }

std::optional<Submit> decode_submit(const std::vector<std::uint8_t>& payload) {
    codec::Reader r(payload);
    Submit m;
    m.subjob = r.u32();
    m.first_rank = r.u32();
    m.count = r.u32();
    m.adapter = r.str();
    m.account = r.str();
    m.command.program = r.str();
    m.command.args = r.strings();
    m.command.env = r.pairs();
    m.command.directory = r.str();
    const std::uint32_t has_stdin = r.u32();
    m.has_stdin = has_stdin == 1;
    bool valid = has_stdin <= 1 && m.count > 0 && !m.command.program.empty();
    const std::uint32_t files = r.u32();
    for (std::uint32_t i = 0; r.ok() && i < files; ++i) {
        StagedFile f;
        f.name = r.str();
        f.mode = r.u32();
        f.size = r.u32();
        f.sha256 = r.str();
        valid = valid && staged_name_valid(f.name) && f.mode <= 07777 && f.sha256.size() == 64;
        for (const StagedFile& g : m.stage) valid = valid && g.name != f.name;
        if (r.ok()) m.stage.push_back(std::move(f));
    }
    const std::uint32_t stage_program = r.u32();
    m.stage_program = stage_program == 1;
    valid = valid && stage_program <= 1 && (!m.stage_program || !m.stage.empty());
    m.delegation = r.str();
    valid = valid && (m.delegation == "none" || m.delegation == "limited" || m.delegation == "full");
    m.batch.queue = r.str();
    m.batch.project = r.str();
    const std::uint32_t wall = r.u32();
    valid = valid && wall <= static_cast<std::uint32_t>(job::kMaxWallTimeMin);
    m.batch.max_wall_time_min = static_cast<int>(wall);
    const std::uint32_t hosts = r.u32();
    const std::uint32_t memory = r.u32();
    valid = valid && hosts <= m.count && memory <= static_cast<std::uint32_t>(job::kMaxMemoryMb);
    m.batch.host_count = static_cast<int>(hosts);
    m.batch.memory_mb = static_cast<int>(memory);
    m.command.stdin_file = r.str();
    m.command.stdout_file = r.str();
    m.command.stderr_file = r.str();
    for (const std::string* f : {&m.command.stdin_file, &m.command.stdout_file, &m.command.stderr_file})
        valid = valid && f->find('\0') == std::string::npos;
    const std::uint32_t relay = r.u32();
    m.relay = relay == 1;
    valid = valid && relay <= 1;
    const std::uint32_t hub_port = r.u32();
    m.hub_port = static_cast<std::uint16_t>(hub_port);
    valid = valid && hub_port <= 65535;
    return finish(r, valid, std::move(m));
}

std::optional<State> decode_state(const std::vector<std::uint8_t>& payload) {
    codec::Reader r(payload);
    State m;
    const bool valid = enum_from(r.u32(), job::JobState::failed, m.state);
    m.detail = r.str();
    return finish(r, valid, std::move(m));
}

std::optional<Started> decode_started(const std::vector<std::uint8_t>& payload) {
    codec::Reader r(payload);
    Started m;
    m.rank = r.u32();
    m.pid = r.u32();
    return finish(r, true, std::move(m));
}

std::optional<StartFailed> decode_start_failed(const std::vector<std::uint8_t>& payload) {
    codec::Reader r(payload);
    StartFailed m;
    m.rank = r.u32();
    m.reason = r.str();
    return finish(r, true, std::move(m));
}

std::optional<Output> decode_output(const std::vector<std::uint8_t>& payload) {
    codec::Reader r(payload);
    Output m;
    m.rank = r.u32();
    const bool valid = enum_from(r.u32(), job::Stream::err, m.stream);
    m.bytes = r.str();
    return finish(r, valid, std::move(m));
}

std::optional<OutputClosed> decode_output_closed(const std::vector<std::uint8_t>& payload) {
    codec::Reader r(payload);
    OutputClosed m;
    m.rank = r.u32();
    const bool valid = enum_from(r.u32(), job::Stream::err, m.stream);
    return finish(r, valid, std::move(m));
}

std::optional<Exited> decode_exited(const std::vector<std::uint8_t>& payload) {
    codec::Reader r(payload);
    Exited m;
    m.rank = r.u32();
    m.pid = r.u32();
    const std::uint32_t signaled = r.u32();
    const std::uint32_t value = r.u32();
    m.how.signaled = signaled == 1;
    m.how.value = static_cast<int>(value);
    return finish(r, signaled <= 1 && value <= 255, std::move(m));
}

std::optional<Cancel> decode_cancel(const std::vector<std::uint8_t>& payload) {
    codec::Reader r(payload);
    Cancel m;
    const bool valid = enum_from(r.u32(), job::CancelMode::kill, m.mode);
    return finish(r, valid, std::move(m));
}

std::vector<std::uint8_t> encode(const StageData& m) {
    auto w = writer(Type::stage_data);
    w.str(m.bytes);
    return w.finish();
}

std::optional<StageData> decode_stage_data(const std::vector<std::uint8_t>& payload) {
    codec::Reader r(payload);
    StageData m;
    m.bytes = r.str();
    return finish(r, true, std::move(m));
}

std::vector<std::uint8_t> encode(const DelegationRequest& m) {
    auto w = writer(Type::delegation_request);
    w.str(m.public_key_pem);
    return w.finish();
}

std::vector<std::uint8_t> encode(const Delegation& m) {
    auto w = writer(Type::delegation);
    w.str(m.certificates_pem);
    return w.finish();
}

std::optional<DelegationRequest> decode_delegation_request(const std::vector<std::uint8_t>& payload) {
    codec::Reader r(payload);
    DelegationRequest m;
    m.public_key_pem = r.str();
    return finish(r, !m.public_key_pem.empty(), std::move(m));
}

std::optional<Delegation> decode_delegation(const std::vector<std::uint8_t>& payload) {
    codec::Reader r(payload);
    Delegation m;
    m.certificates_pem = r.str();
    return finish(r, !m.certificates_pem.empty(), std::move(m));
}

bool staged_name_valid(const std::string& name) {
    return !name.empty() && name.size() <= 255 && name != "." && name != ".." && name.find('/') == std::string::npos &&
           name.find('\0') == std::string::npos;
}

std::optional<std::string> decode_stdin(const std::vector<std::uint8_t>& payload) {
    codec::Reader r(payload);
    std::string bytes = r.str();
    if (!r.done()) return std::nullopt;
    return bytes;
}

}  // namespace strata::gram
