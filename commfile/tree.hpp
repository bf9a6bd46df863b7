// The syntax of a communicator file, shared by its two spellings: the XML
// reader (libxml2) and the YAML reader (yaml-cpp) each turn their file into
// the same tree of Nodes, checked against one table of what each element
// holds (kElements). comm_file.cpp gives the tree its meaning.
//
//   XML                                       YAML
//   <communicators>                           comms:
//     <comm name="PD">                          - name: PD
//       <processor key="1">pd-01</processor>      processors: [{name: pd-01, key: 1}, pd-02]
//       <processor>pd-02</processor>            intercomms:
//     </comm>                                   - name: P4_PD
//     <intercomm name="P4_PD">                    first: P4
//       <first>P4</first><second>PD</second>      second: {name: PD, color: 0}
//     </intercomm>
//   </communicators>
#pragma once

#include "base/result.hpp"

#include <map>
#include <string>
#include <vector>

namespace strata::commfile {

struct Field {
    std::string value;
    int line = 0;
    int number = 0;  // a number field's value, set by fields_check
};

struct Node {
    std::string element;  // "communicators", "comm", "processor", "intercomm", "first" or "second"
    int line = 0;
    std::map<std::string, Field> fields;
    std::vector<Node> children;  // in the order of the file
};

struct FieldSpec {
    const char* name;
    bool number;  // a non-negative integer
    bool required;
};

struct ChildSpec {
    const char* yaml_key;  // the YAML key holding these children
    const char* element;   // and the XML element (and Node::element) of each
    bool single;           // exactly one (a value in YAML), not a list
};

struct ElementSpec {
    const char* element;
    std::vector<FieldSpec> fields;
    // The `name` field may be written as the element's text in XML
    // (<processor>pd-01</processor>) and as a plain value in YAML (- pd-01).
    bool text_is_name;
    std::vector<ChildSpec> children;
};

// The element called `element`, or null.
const ElementSpec* element_spec(const std::string& element);
// "name, key, processor, ..." (fields, then children as XML or YAML calls them).
std::string element_expects(const ElementSpec& spec, bool yaml);

// The file's tree, rooted at a "communicators" Node; a failure is
// "WHERE:LINE: what is wrong". Unknown elements, attributes and keys are
// errors here; required fields and numbers are checked by fields_check.
base::Result<Node> xml_read(const std::string& text, const std::string& where);
base::Result<Node> yaml_read(const std::string& text, const std::string& where);

// Required fields present, numbers well formed (and read into Field::number),
// in the whole tree.
base::Status fields_check(Node& node, const std::string& where);

}  // namespace strata::commfile
