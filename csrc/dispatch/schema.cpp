// Schema parsing and printing (see schema.h).
#include "dispatch/schema.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/error.h"

namespace tn {
namespace {

struct Parser {
  const std::string& s;
  size_t i = 0;

  [[noreturn]] void fail(const char* what) const {
    TN_FAIL(Runtime, "schema parse error: ", what, " at position ", i, " in: ", s);
  }
  // Any whitespace, as upstream's lexer: the tree defines multi-line schemas (FSDP's ops).
  void skip_ws() {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  }
  bool peek(char c) {
    skip_ws();
    return i < s.size() && s[i] == c;
  }
  bool accept(char c) {
    if (!peek(c)) return false;
    ++i;
    return true;
  }
  void expect(char c) {
    if (!accept(c)) fail((std::string("expected '") + c + "'").c_str());
  }
  bool accept_str(const char* t) {
    skip_ws();
    size_t n = std::char_traits<char>::length(t);
    if (s.compare(i, n, t) == 0) {
      i += n;
      return true;
    }
    return false;
  }
  std::string ident() {
    skip_ws();
    size_t start = i;
    while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_' ||
                            s[i] == '.' || s[i] == ':'))
      ++i;
    if (start == i) fail("expected an identifier");
    return s.substr(start, i - start);
  }

  AliasInfo alias() {
    AliasInfo a;
    skip_ws();
    size_t start = i;
    while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '*' ||
                            s[i] == '|'))
      ++i;
    a.before = s.substr(start, i - start);
    a.after = a.before;
    if (accept('!')) a.is_write = true;
    if (accept_str("->")) {
      skip_ws();
      size_t st = i;
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '*'))
        ++i;
      a.after = s.substr(st, i - st);
    }
    expect(')');
    return a;
  }

  static bool is_container(const std::string& base) {
    return base == "Dict" || base == "Future" || base == "RRef" || base == "Await" ||
           base == "Union";
  }

  std::vector<SchemaType> type_list() {  // after '(' : T, T, ... ')'
    std::vector<SchemaType> out;
    while (!accept(')')) {
      if (!out.empty()) expect(',');
      out.push_back(type());
    }
    return out;
  }

  SchemaType type() {
    SchemaType t;
    skip_ws();
    if (accept('(')) {  // tuple type
      t.base = "()";
      t.kind = TypeKind::Other;
      t.args = type_list();
      return suffixes(t);
    }
    size_t start = i;
    // Class types are qualified: __torch__.torch.classes.profiler._RecordFunction.
    while (i < s.size() &&
           (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_' || s[i] == '.'))
      ++i;
    if (start == i) fail("expected a type");
    t.base = s.substr(start, i - start);
    t.kind = type_kind(t.base);
    if (is_container(t.base)) {
      expect('(');
      t.args = type_list();
    }
    return suffixes(t);
  }

  SchemaType suffixes(SchemaType t) {
    if (accept('(')) t.alias = alias();
    if (accept('?')) t.optional = true;
    if (accept('[')) {
      t.is_list = true;
      t.elem_optional = t.optional;
      t.optional = false;
      skip_ws();
      if (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
        t.list_size = std::atoi(s.c_str() + i);
        while (std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
      }
      expect(']');
      while (accept('[')) {  // lists of lists
        expect(']');
        ++t.extra_list_depth;
      }
      if (accept('(')) t.list_alias = alias();
      if (accept('?')) t.optional = true;
    }
    return t;
  }

  // The raw default text up to the next top-level ',' or ')'.
  std::string default_text() {
    skip_ws();
    size_t start = i;
    int depth = 0;
    char quote = 0;
    for (; i < s.size(); ++i) {
      char c = s[i];
      if (quote) {
        if (c == '\\') ++i;
        else if (c == quote) quote = 0;
        continue;
      }
      if (c == '"' || c == '\'') quote = c;
      else if (c == '[' || c == '(') ++depth;
      else if ((c == ']' || c == ')') && depth > 0) --depth;
      else if ((c == ',' || c == ')') && depth == 0) break;
    }
    size_t end = i;
    while (end > start && s[end - 1] == ' ') --end;
    return s.substr(start, end - start);
  }
};

bool is_int_literal(const std::string& v) {
  if (v.empty()) return false;
  size_t k = (v[0] == '-') ? 1 : 0;
  if (k == v.size()) return false;
  for (; k < v.size(); ++k)
    if (!std::isdigit(static_cast<unsigned char>(v[k]))) return false;
  return true;
}

bool is_number_literal(const std::string& v) {
  if (v.empty()) return false;
  char* end = nullptr;
  std::strtod(v.c_str(), &end);
  return end && *end == '\0';
}

// Upstream prints strings double-quoted, escaping quotes and backslashes.
std::string quote_string(const std::string& raw) {
  // raw includes its quotes; unescape, then re-escape.
  std::string body;
  for (size_t k = 1; k + 1 < raw.size(); ++k) {
    if (raw[k] == '\\' && k + 2 < raw.size()) ++k;
    body += raw[k];
  }
  std::string out = "\"";
  for (char c : body) {
    if (c == '"' || c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// Enum-valued defaults upstream stores as ints.
std::string enum_default(const std::string& base, const std::string& v) {
  if (base == "int") {
    if (v == "Mean") return "1";
    if (v == "Sum") return "2";
  }
  if (base == "MemoryFormat") {
    if (v == "contiguous_format") return "0";
    if (v == "preserve_format") return "1";
    if (v == "channels_last") return "2";
  }
  if (base == "ScalarType") {
    if (v == "long") return "4";
    if (v == "float") return "6";
    if (v == "double") return "7";
  }
  return v;
}

std::string normalise_scalar(const SchemaType& t, const std::string& v) {
  if (v == "None" || v == "True" || v == "False") return v;
  if (!v.empty() && (v[0] == '"' || v[0] == '\'')) return quote_string(v);
  if (t.base == "float" && is_number_literal(v)) return format_schema_float(std::strtod(v.c_str(), nullptr));
  if (t.base == "Scalar" && is_number_literal(v) && !is_int_literal(v))
    return format_schema_float(std::strtod(v.c_str(), nullptr));
  return enum_default(t.base, v);
}

std::string normalise_default(const SchemaType& t, const std::string& v) {
  if (t.is_list && v != "None") {
    std::string elem = v;
    if (!elem.empty() && elem[0] == '[') {
      // Normalise each element of a list literal.
      std::string inner = elem.substr(1, elem.size() - 2);
      if (inner.empty()) return "[]";
      std::string out = "[";
      size_t start = 0;
      SchemaType et = t;
      et.is_list = false;
      while (start <= inner.size()) {
        size_t comma = inner.find(',', start);
        std::string item = inner.substr(start, comma == std::string::npos ? std::string::npos
                                                                          : comma - start);
        while (!item.empty() && item[0] == ' ') item.erase(0, 1);
        out += (out.size() > 1 ? ", " : "") + normalise_scalar(et, item);
        if (comma == std::string::npos) break;
        start = comma + 1;
      }
      return out + "]";
    }
    if (t.list_size > 0) {  // int[2] stride=1 -> [1, 1]
      SchemaType et = t;
      et.is_list = false;
      std::string item = normalise_scalar(et, v);
      std::string out = "[";
      for (int k = 0; k < t.list_size; ++k) out += (k ? ", " : "") + item;
      return out + "]";
    }
  }
  return normalise_scalar(t, v);
}

Argument argument(Parser& p, bool kwarg_only, bool is_return) {
  Argument a;
  a.type = p.type();
  if (a.type.base == "DeviceIndex") {
    a.type.base = "int";
    a.type.kind = TypeKind::Int;
  }
  a.kwarg_only = kwarg_only;
  p.skip_ws();
  if (p.i < p.s.size() && (std::isalpha(static_cast<unsigned char>(p.s[p.i])) || p.s[p.i] == '_'))
    a.name = p.ident();
  if (!is_return && p.accept('=')) a.default_text = normalise_default(a.type, p.default_text());
  a.is_out = kwarg_only && a.type.alias && a.type.alias->is_write;
  return a;
}

}  // namespace

std::string format_schema_float(double v) {
  char buf[64];
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (std::isnan(v)) return "nan";
  std::snprintf(buf, sizeof(buf), "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".en") == std::string::npos) s += ".";
  return s;
}

std::string SchemaType::str() const {
  std::string s = base == "()" ? "" : base;
  if (!args.empty() || base == "()") {
    s += "(";
    for (size_t k = 0; k < args.size(); ++k) s += (k ? ", " : "") + args[k].str();
    s += ")";
  }
  if (alias) {
    s += "(" + alias->before + (alias->is_write ? "!" : "");
    if (alias->after != alias->before) s += " -> " + alias->after;
    s += ")";
  }
  if (is_list) {
    if (elem_optional) s += "?";
    s += "[";
    if (list_size >= 0) s += std::to_string(list_size);
    s += "]";
    for (int k = 0; k < extra_list_depth; ++k) s += "[]";
    if (list_alias) {
      s += "(" + list_alias->before + (list_alias->is_write ? "!" : "");
      if (list_alias->after != list_alias->before) s += " -> " + list_alias->after;
      s += ")";
    }
  }
  if (optional) s += "?";
  return s;
}

std::string FunctionSchema::str() const {
  std::string s = name;
  if (!overload.empty()) s += "." + overload;
  s += "(";
  bool kw = false;
  for (size_t k = 0; k < arguments.size(); ++k) {
    const Argument& a = arguments[k];
    if (k) s += ", ";
    if (a.kwarg_only && !kw) {
      s += "*, ";
      kw = true;
    }
    s += a.type.str() + " " + a.name;
    if (a.default_text) s += "=" + *a.default_text;
  }
  if (is_vararg) s += arguments.empty() ? "..." : ", ...";
  s += ") -> ";
  if (is_varret) return s + "...";
  bool paren = returns_tuple || returns.size() != 1;
  if (paren) s += "(";
  for (size_t k = 0; k < returns.size(); ++k) {
    if (k) s += ", ";
    s += returns[k].type.str();
    if (!returns[k].name.empty()) s += " " + returns[k].name;
  }
  if (paren) s += ")";
  return s;
}

bool FunctionSchema::is_mutable() const {
  for (const Argument& a : arguments)
    if ((a.type.alias && a.type.alias->is_write) || (a.type.list_alias && a.type.list_alias->is_write))
      return true;
  return false;
}

FunctionSchema parse_schema(const std::string& text, const std::string& ns) {
  Parser p{text};
  FunctionSchema f;
  std::string head = p.ident();
  size_t dot = head.find('.');
  std::string base = dot == std::string::npos ? head : head.substr(0, dot);
  f.overload = dot == std::string::npos ? "" : head.substr(dot + 1);
  f.name = base.find("::") == std::string::npos ? ns + "::" + base : base;
  p.expect('(');
  bool kwarg_only = false;
  while (!p.accept(')')) {
    if (!f.arguments.empty() || kwarg_only) p.accept(',');
    if (p.accept('*')) {
      kwarg_only = true;
      continue;
    }
    if (p.accept_str("...")) {
      f.is_vararg = true;
      continue;
    }
    f.arguments.push_back(argument(p, kwarg_only, false));
  }
  if (!p.accept_str("->")) p.fail("expected '->'");
  if (p.accept_str("...")) {
    f.is_varret = true;
    return f;
  }
  if (p.accept('(')) {
    f.returns_tuple = true;
    while (!p.accept(')')) {
      if (!f.returns.empty()) p.expect(',');
      f.returns.push_back(argument(p, false, true));
    }
  } else {
    f.returns.push_back(argument(p, false, true));
  }
  return f;
}

TypeKind type_kind(const std::string& base) {
  static const std::pair<const char*, TypeKind> kKinds[] = {
      {"Tensor", TypeKind::Tensor},         {"Scalar", TypeKind::Scalar},
      {"int", TypeKind::Int},               {"SymInt", TypeKind::Int},
      {"float", TypeKind::Float},           {"SymFloat", TypeKind::Float},
      {"bool", TypeKind::Bool},             {"SymBool", TypeKind::Bool},
      {"str", TypeKind::Str},               {"ScalarType", TypeKind::ScalarType},
      {"Layout", TypeKind::Layout},         {"MemoryFormat", TypeKind::MemoryFormat},
      {"Device", TypeKind::Device},         {"Generator", TypeKind::Generator},
      {"Storage", TypeKind::Storage}};
  for (const auto& [name, kind] : kKinds)
    if (base == name) return kind;
  if (base.rfind("__torch__.torch.classes.", 0) == 0) return TypeKind::Object;
  return TypeKind::Other;
}

}  // namespace tn
