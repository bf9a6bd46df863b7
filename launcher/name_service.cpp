#include "launcher/name_service.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "base/knob.hpp"

namespace strata::launcher {

namespace {

const base::KnobString name_dir_knob{
    "STRATA_NAME_DIR", "",
    "directory of mpirun's name service (MPI_Publish_name): jobs whose mpirun sees the same directory share names; "
    "default ~/.strata/names"};

using Reply = wireup::NamesReply;

Reply reply(Reply::Status s, std::string text) { return Reply{s, std::move(text)}; }

std::string hex(const std::string& s) {
    static const char digits[] = "0123456789abcdef";
    std::string out;
    for (const unsigned char c : s) {
        out += digits[c >> 4];
        out += digits[c & 15];
    }
    return out;
}

// Makes `path` (mode 0700) unless it exists, one component at a time.
void dirs_make(const std::string& path) {
    for (std::size_t at = path.find('/', 1); at != std::string::npos; at = path.find('/', at + 1))
        ::mkdir(path.substr(0, at).c_str(), 0700);
    ::mkdir(path.c_str(), 0700);
}

}  // namespace

NameService::NameService() {
    dir_path_ = name_dir_knob.get();
    if (dir_path_.empty()) {
        const char* home = std::getenv("HOME");
        dir_path_ = std::string(home != nullptr && *home != '\0' ? home : "/tmp") + "/.strata/names";
    }
}

NameService::~NameService() {
    for (const std::string& f : mine_) ::unlinkat(dir_.get(), f.c_str(), 0);
}

base::Status NameService::dir_open() {
    if (dir_) return {};
    dirs_make(dir_path_);
    base::UniqueFd fd(::open(dir_path_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd) return base::Error{"cannot open the name directory " + dir_path_ + ": " + std::strerror(errno)};
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0 || st.st_uid != ::geteuid() || (st.st_mode & 022) != 0)
        return base::Error{"the name directory " + dir_path_ +
                           " belongs to another account or others can write it; set STRATA_NAME_DIR to a "
                           "directory of yours"};
    dir_ = std::move(fd);
    return {};
}

wireup::NamesReply NameService::handle(const wireup::Names& request) {
    if (request.service.empty() || request.service.size() > kMaxService)
        return reply(Reply::Status::refused, "a service name is 1 to " + std::to_string(kMaxService) + " bytes");
    if (base::Status open = dir_open(); !open) return reply(Reply::Status::refused, open.error());
    switch (request.op) {
        case wireup::NameOp::publish: return publish(request.service, request.port);
        case wireup::NameOp::lookup: return lookup(request.service);
        case wireup::NameOp::unpublish: return unpublish(request.service, request.port);
    }
    return reply(Reply::Status::refused, "unknown request");
}

wireup::NamesReply NameService::publish(const std::string& service, const std::string& port) {
    if (port.empty() || port.size() >= kMaxPort)
        return reply(Reply::Status::refused, "a port name is 1 to " + std::to_string(kMaxPort - 1) + " bytes");
    const std::string file = hex(service);
    const std::string tmp = "." + file + "." + std::to_string(::getpid());
    base::UniqueFd fd(::openat(dir_.get(), tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!fd) return reply(Reply::Status::refused, "cannot write in " + dir_path_ + ": " + std::strerror(errno));
    const std::string content = port + "\n";
    const bool written = ::write(fd.get(), content.data(), content.size()) == static_cast<ssize_t>(content.size());
    // Linked under its name only whole, and only if the name is free.
    const int linked = written ? ::linkat(dir_.get(), tmp.c_str(), dir_.get(), file.c_str(), 0) : -1;
    const int e = errno;
    ::unlinkat(dir_.get(), tmp.c_str(), 0);
    if (linked != 0) {
        return reply(Reply::Status::refused, e == EEXIST ? "the service name '" + service + "' is already published"
                                                         : "cannot publish in " + dir_path_ + ": " + std::strerror(e));
    }
    mine_.push_back(file);
    return reply(Reply::Status::ok, "");
}

base::Result<std::string> NameService::read(const std::string& file) const {
    base::UniqueFd fd(::openat(dir_.get(), file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd) return base::Error{std::strerror(errno)};
    char buf[kMaxPort + 1];
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n <= 0 || buf[n - 1] != '\n') return base::Error{"a malformed entry"};
    return std::string(buf, static_cast<std::size_t>(n - 1));
}

wireup::NamesReply NameService::lookup(const std::string& service) {
    base::Result<std::string> port = read(hex(service));
    if (!port) return reply(Reply::Status::no_name, "no service '" + service + "' is published in " + dir_path_);
    return reply(Reply::Status::ok, *port);
}

wireup::NamesReply NameService::unpublish(const std::string& service, const std::string& port) {
    const std::string file = hex(service);
    const auto it = std::find(mine_.begin(), mine_.end(), file);
    if (it == mine_.end())
        return reply(Reply::Status::refused, "this job did not publish the service '" + service + "'");
    base::Result<std::string> published = read(file);
    if (!published || *published != port)
        return reply(Reply::Status::refused, "the service '" + service + "' was published with another port name");
    ::unlinkat(dir_.get(), file.c_str(), 0);
    mine_.erase(it);
    return reply(Reply::Status::ok, "");
}

}  // namespace strata::launcher
