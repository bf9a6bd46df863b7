// A stand-in for an MPI process: speaks the wire-up protocol directly through
// strata::wireup::Client, and does what its arguments say, in order.
//
//   --marker=TEXT     ignored; lets a test find leftover processes in /proc
//   init              from_environment + checkin (like MPI_Init)
//   finalize          send Finalize, wait for FinalizeDone (like MPI_Finalize)
//   print:TEXT        TEXT and a newline on stdout ({rank} and {size} are replaced)
//   print-err:TEXT    the same on stderr
//   print-partial:TEXT  TEXT without a newline on stdout
//   print-many:N:TEXT  N lines "TEXT <i>" on stdout, i = 0..N-1
//   print-env:NAME    "NAME=value" or "NAME unset"
//   echo-stdin        every stdin line as "stdin: LINE", then "stdin: EOF"
//   touch:PATH        creates PATH.<rank> (proves the process ran)
//   ignore-term       ignore SIGTERM from now on
//   sleep             sleep until killed
//   exit:N            exit with code N now
//   signal:N          kill itself with signal N
//   abort:N:TEXT      MPI_Abort-like: Client::abort(N, TEXT), then exit N
//   bad-key           corrupt STRATA_JOB_KEY (before init)
//   print-cwd         "cwd=PATH owner=UID" (the working directory and its owner)
//   print-file:PATH   "PATH: LINE" for every line of the file
//   print-labels:LEVEL  after init: "LEVEL: v0 v1 ..." from every rank's card in the Release
//   print-commfile    after init: "commfile: WHERE", then "commfile| LINE" for each line of
//                     the communicator file the Release carries
//   @R:ACTION         ACTION on rank R only (R from STRATA_RANK)
// A failing init or finalize prints the reason and exits 3.
#include "wireup/protocol.hpp"
#include "wireup/environment.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>

namespace {

// A card's field by name, for print-labels.
std::string card_field(const strata::wireup::BusinessCard& c, const std::string& name) {
    if (name == "site") return c.site;
    if (name == "subjob") return std::to_string(c.subjob);
    if (name == "machine") return c.machine;
    if (name == "processor_name") return c.processor_name;
    if (name == "vendor") return c.vendor;
    return "?";
}

using strata::wireup::Client;

std::string substitute(std::string text, int rank, int size) {
    for (const auto& [key, value] : {std::pair<std::string, int>{"{rank}", rank}, {"{size}", size}}) {
        for (std::size_t at = text.find(key); at != std::string::npos; at = text.find(key))
            text.replace(at, key.size(), std::to_string(value));
    }
    return text;
}

[[noreturn]] void die(const std::string& what) {
    std::cout.flush();
    std::cerr << "fake_rank: " << what << std::endl;
    std::exit(3);
}

// What the actions share: this rank, the job's size, and after init the
// connection to mpirun and the Release it sent.
struct Rank {
    int rank = 0;
    int size = 1;
    std::optional<Client> client;
    strata::wireup::Release release;
};

void rank_init(Rank& me) {
    auto contacted = Client::from_environment();
    if (!contacted) die(contacted.error());
    me.client = std::move(*contacted);
    if (!me.client) die("not started by mpirun");
    strata::wireup::BusinessCard card;
    card.hostname = "fake-" + std::to_string(me.rank);
    card.publish("tcp", "127.0.0.1:" + std::to_string(10000 + me.rank));
    auto released = me.client->checkin(card);
    if (!released) die("checkin: " + released.error());
    me.release = std::move(*released);
    if (me.release.cards.size() != static_cast<std::size_t>(me.size)) die("Release has the wrong size");
    for (int r = 0; r < me.size; ++r)
        if (me.release.cards[static_cast<std::size_t>(r)].hostname != "fake-" + std::to_string(r))
            die("Release card " + std::to_string(r) + " is not that rank's");
}

void rank_finalize(Rank& me) {
    if (!me.client) die("finalize without init");
    if (auto sent = me.client->send_finalize(); !sent) die("finalize: " + sent.error());
    for (;;) {
        auto done = me.client->poll_finalize_done();
        if (!done) die("finalize: " + done.error());
        if (*done) break;
        pollfd p{me.client->fd(), POLLIN, 0};
        ::poll(&p, 1, -1);
    }
}

// The print actions; false when `verb` is none of them.
bool act_print(const Rank& me, const std::string& verb, const std::string& arg) {
    if (verb == "print") {
        std::cout << substitute(arg, me.rank, me.size) << std::endl;
    } else if (verb == "print-err") {
        std::cerr << substitute(arg, me.rank, me.size) << std::endl;
    } else if (verb == "print-partial") {
        std::cout << substitute(arg, me.rank, me.size) << std::flush;
    } else if (verb == "print-many") {
        const std::size_t c2 = arg.find(':');
        const int n = std::atoi(arg.substr(0, c2).c_str());
        const std::string text = substitute(arg.substr(c2 + 1), me.rank, me.size);
        for (int k = 0; k < n; ++k) std::cout << text << ' ' << k << '\n';
        std::cout.flush();
    } else if (verb == "print-cwd") {
        char cwd[4096];
        struct stat st {};
        if (::getcwd(cwd, sizeof cwd) == nullptr || ::stat(cwd, &st) != 0) die("print-cwd: cannot read cwd");
        std::cout << "cwd=" << cwd << " owner=" << st.st_uid << std::endl;
    } else if (verb == "print-file") {
        std::ifstream in(arg);
        if (!in) die("print-file: cannot open " + arg);
        std::string line;
        while (std::getline(in, line)) std::cout << arg << ": " << line << '\n';
        std::cout.flush();
    } else {
        return false;
    }
    return true;
}

// The actions that report what the Release or the environment holds; false
// when `verb` is none of them.
bool act_report(const Rank& me, const std::string& verb, const std::string& arg) {
    if (verb == "print-labels") {
        std::string line = arg + ":";
        for (const auto& c : me.release.cards) line += ' ' + card_field(c, arg);
        std::cout << line << std::endl;
    } else if (verb == "print-commfile") {
        std::cout << "commfile: " << me.release.comm_file << '\n';
        std::istringstream text(me.release.comm_text);
        std::string line;
        while (std::getline(text, line)) std::cout << "commfile| " << line << '\n';
        std::cout.flush();
    } else if (verb == "print-env") {
        const char* v = std::getenv(arg.c_str());
        // Piece by piece: GCC 12 -O3 warns falsely (-Wrestrict) on "=" + std::string(v).
        std::cout << arg;
        if (v != nullptr)
            std::cout << '=' << v;
        else
            std::cout << " unset";
        std::cout << std::endl;
    } else if (verb == "echo-stdin") {
        std::string line;
        while (std::getline(std::cin, line)) std::cout << "stdin: " << line << '\n';
        std::cout << "stdin: EOF" << std::endl;
    } else {
        return false;
    }
    return true;
}

// The actions on the process itself; false when `verb` is none of them.
bool act_process(Rank& me, const std::string& verb, const std::string& arg) {
    if (verb == "touch") {
        std::ofstream(arg + "." + std::to_string(me.rank)) << "ran\n";
    } else if (verb == "ignore-term") {
        ::signal(SIGTERM, SIG_IGN);
    } else if (verb == "sleep") {
        std::cout.flush();
        for (;;) ::pause();
    } else if (verb == "exit") {
        std::cout.flush();
        std::exit(std::atoi(arg.c_str()));
    } else if (verb == "signal") {
        std::cout.flush();
        ::raise(std::atoi(arg.c_str()));
        for (;;) ::pause();  // a blocked or ignored signal must not look like success
    } else if (verb == "abort") {
        const std::size_t c2 = arg.find(':');
        const int code = std::atoi(arg.substr(0, c2).c_str());
        const std::string text = c2 == std::string::npos ? "" : arg.substr(c2 + 1);
        std::cout.flush();
        if (me.client) me.client->abort(code, text);
        std::exit(code & 255);
    } else if (verb == "bad-key") {
        ::setenv(strata::wireup::env::kJobKey, "0123456789abcdef", 1);
    } else {
        return false;
    }
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    const char* rank_env = std::getenv(strata::wireup::env::kRank);
    const char* size_env = std::getenv(strata::wireup::env::kSize);
    Rank me;
    me.rank = rank_env != nullptr ? std::atoi(rank_env) : 0;
    me.size = size_env != nullptr ? std::atoi(size_env) : 1;

    for (int i = 1; i < argc; ++i) {
        std::string action = argv[i];
        if (action.rfind("--marker=", 0) == 0) continue;
        if (action[0] == '@') {
            const std::size_t colon = action.find(':');
            if (std::atoi(action.substr(1, colon - 1).c_str()) != me.rank) continue;
            action = action.substr(colon + 1);
        }
        const std::size_t colon = action.find(':');
        const std::string verb = action.substr(0, colon);
        const std::string arg = colon == std::string::npos ? "" : action.substr(colon + 1);

        if (verb == "init") {
            rank_init(me);
        } else if (verb == "finalize") {
            rank_finalize(me);
        } else if (!act_print(me, verb, arg) && !act_report(me, verb, arg) && !act_process(me, verb, arg)) {
            die("unknown action '" + action + "'");
        }
    }
    return 0;
}
