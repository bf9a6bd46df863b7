// strata-proxy-destroy: overwrites a proxy credential and removes it.
//
//   strata-proxy-destroy [FILE]
#include "security/proxy.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

namespace sec = strata::security;
namespace base = strata::base;

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (args.size() > 1 || (args.size() == 1 && (args[0].empty() || args[0][0] == '-'))) {
        const bool help = args.size() == 1 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help");
        (help ? std::cout : std::cerr)
            << "usage: strata-proxy-destroy [FILE]\n"
               "Overwrites the proxy in FILE (default $X509_USER_PROXY, else /tmp/x509up_u<uid>)\n"
               "with zeros and removes it.\n";
        return help ? 0 : 2;
    }
    const std::string file = args.empty() ? sec::proxy_default_path().string() : args[0];
    // O_NOFOLLOW: never overwrite what a symbolic link placed there points to.
    const int fd = ::open(file.c_str(), O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        std::cerr << "strata-proxy-destroy: no proxy to destroy at " << file << ": " << std::strerror(errno) << "\n";
        return 1;
    }
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        const std::vector<char> zeros(4096, 0);
        for (off_t done = 0; done < st.st_size;) {
            const ssize_t n = ::write(fd, zeros.data(),
                                      static_cast<std::size_t>(std::min<off_t>(st.st_size - done, 4096)));
            if (n <= 0) break;
            done += n;
        }
        ::fsync(fd);
    }
    ::close(fd);
    if (::unlink(file.c_str()) != 0) {
        std::cerr << "strata-proxy-destroy: cannot remove " << file << ": " << std::strerror(errno) << "\n";
        return 1;
    }
    return 0;
}
