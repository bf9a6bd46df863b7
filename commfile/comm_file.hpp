// Externally defined communicators: a file names groups of processes by
// their processor names (MPI_Get_processor_name), and the MPI library builds
// them on request (MPIX_Comm_create_named). The format is that of the RWTH
// work with MetaMPICH, in XML or the same tree in YAML (commfile/tree.hpp):
//
// - A <comm name="N"> lists <processor> members, each a processor name or a
//   regular expression matched against whole names. Its ranks follow the
//   order of the members, a regular expression's matches in alphabetical
//   order of their names, and the processes of one name in their order in
//   the parent; key="K" fixes the rank of a member's (first) process.
// - A <comm> inside a <comm> is a sub-communicator of it: every process of
//   it must be in its parent, and its regular expressions match among the
//   parent's processes only. Top-level comms are subsets of MPI_COMM_WORLD.
// - Several comms of one name are told apart by their color, 0..n-1 in the
//   order of the file.
// - <intercomm name="N"><first [color="C"]>A</first><second>B</second>
//   joins two disjoint comms of the same parent (color 0 when not given).
// - The top-level elements may stand in a root element of any name, or one
//   after another with none around them (as the paper prints its files).
//
// Whatever the file alone can show wrong is an error of parse(); what
// depends on the job's processor names is an error of resolve(), per
// definition. Every message starts "WHERE:LINE: ".
#pragma once

#include "base/result.hpp"
#include "commfile/pattern.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace strata::commfile {

struct Member {
    std::string text;              // a processor name, or a regular expression
    std::optional<Pattern> re;     // set when `text` is a regular expression
    int key = -1;                  // the rank its first process takes, or -1
    int line = 0;
};

struct Definition {
    bool inter = false;
    std::string name;
    int color = 0;  // among the definitions of this name
    int line = 0;
    // The enclosing comm (index into File::defs), or -1: MPI_COMM_WORLD. An
    // intercomm's is its sides' common parent.
    int parent = -1;
    std::vector<Member> members;  // a comm's
    int first = -1;               // an intercomm's sides (indices of comms)
    int second = -1;
};

struct File {
    std::string where;                                // the file's path, or what made it
    std::vector<Definition> defs;                     // in the order of the file; a parent before its children
    std::map<std::string, std::vector<int>> by_name;  // name -> indices, in colour order
    std::vector<std::string> names;                   // each name once, by first appearance

    // The definitions called `name`, or null.
    const std::vector<int>* named(const std::string& name) const;
    // "WHERE:LINE: "
    std::string at(int line) const;
};

// Whether `text` is a regular expression rather than a processor name: it
// has one of * + ? [ ] ( ) { } | ^ $ \ (a dot alone is a name's dot).
bool member_is_pattern(const std::string& text);

// A file's text, XML when its first non-blank character is '<' and YAML
// otherwise; `where` names it in messages.
base::Result<File> parse(const std::string& text, const std::string& where);
// The file at `path`.
base::Result<File> load(const std::string& path);

// One definition as this job's processes make it up.
struct Resolved {
    std::vector<int> group;   // world ranks in rank order (an intercomm's first side)
    std::vector<int> second;  // an intercomm's second side
    std::string error;        // non-empty: it cannot be built for this job, and why
};

// Every definition for a job whose world rank r has `processor_names[r]`.
std::vector<Resolved> resolve(const File& file, const std::vector<std::string>& processor_names);

// Where one process of a job sits, for generate().
struct Place {
    std::string site;
    std::string machine;  // unique within its site
    std::string processor_name;
};

// The file mpirun writes from a job (mpirun -gencomm), in XML: a comm per
// site, inside it a comm per machine, and an intercomm between every two
// sites, named after the labels (qualified "SITE_MACHINE" where a machine's
// name is taken; intercomms "A_B"). Fails when two places share a processor
// name, which the file could not tell apart.
base::Result<std::string> generate(const std::vector<Place>& ranks);

}  // namespace strata::commfile
