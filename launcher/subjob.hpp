// One piece of a job that one scheduler adapter starts: `count` consecutive
// ranks beginning at `first_rank`, all on one machine or site.
#pragma once

#include <string>

namespace strata::launcher {

struct Subjob {
    int index = 0;        // position in the job; exported as STRATA_SUBJOB
    std::string contact;  // who starts it: kLocalContact, later a gatekeeper "host:port"
    std::string machine;  // label of the machine or site (topology "system area")
    int count = 0;
    int first_rank = 0;
};

// The contact of subjobs started on this machine by the embedded fork adapter.
inline constexpr const char* kLocalContact = "local";

}  // namespace strata::launcher
