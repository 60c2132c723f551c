#include "common/sql92/parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include "common/sql92/lexer.h"
#include "runtime/assert.h"

namespace ferry::sql92 {

// Builds an Expression's nodes while the parser reads, with what RocketMQ's parser knows of
// each (is it a literal, a condition, a property) for its compile-time checks.
class Builder {
 public:
  Builder(Expression& e, const ParseLimits& limits) : e_(e), limits_(limits) {}

  struct Info {
    bool condition = false;  // a BooleanExpression in RocketMQ's parser
    bool literal = false;    // a ConstantExpression (TRUE, FALSE and NULL included)
    bool property = false;
    Position at;
    std::size_t depth = 1;
  };

  const Info& info(std::uint32_t id) const { return info_[id]; }
  const Node& node(std::uint32_t id) const { return e_.nodes_[id]; }

  Result<std::uint32_t> add(Node n, Info i, std::initializer_list<std::uint32_t> children) {
    for (const std::uint32_t c : children) i.depth = std::max(i.depth, info_[c].depth + 1);
    return push(n, i);
  }

  Result<std::uint32_t> literal(Value v, Position at) {
    return push(Node{Op::constant, 0, 0, 0, 0, v}, Info{v.type == Type::boolean || v.is_null(), true, false, at, 1});
  }

  std::string_view keep(std::string s) {
    e_.literals_.push_back(std::move(s));
    return e_.literals_.back();
  }

  Result<std::uint32_t> property(std::string_view name, Position at) {
    auto slot = std::find(e_.properties_.begin(), e_.properties_.end(), name);
    if (slot == e_.properties_.end()) {
      if (e_.properties_.size() >= Expression::kPropertiesMax) {
        return error(at, fmt::format("the expression reads more than {} properties", Expression::kPropertiesMax));
      }
      e_.properties_.emplace_back(name);
      slot = e_.properties_.end() - 1;
    }
    const auto index = static_cast<std::uint32_t>(slot - e_.properties_.begin());
    return push(Node{Op::property, index, 0, 0, 0, {}}, Info{false, false, true, at, 1});
  }

  Result<std::uint32_t> list(Op op, const std::vector<std::uint32_t>& operands, Position at) {
    Info i{true, false, false, at, 1};
    for (const std::uint32_t c : operands) i.depth = std::max(i.depth, info_[c].depth + 1);
    Node n{op, 0, 0, static_cast<std::uint32_t>(e_.operands_.size()), static_cast<std::uint32_t>(operands.size()), {}};
    e_.operands_.insert(e_.operands_.end(), operands.begin(), operands.end());
    return push(n, i);
  }

  Result<std::uint32_t> in(bool negated, std::uint32_t property, std::vector<std::string> strings, Position at) {
    std::sort(strings.begin(), strings.end());
    strings.erase(std::unique(strings.begin(), strings.end()), strings.end());
    Node n{negated ? Op::not_in : Op::in, property, 0, static_cast<std::uint32_t>(e_.strings_.size()),
           static_cast<std::uint32_t>(strings.size()), {}};
    for (std::string& s : strings) e_.strings_.push_back(keep(std::move(s)));
    return add(n, Info{true, false, false, at, 1}, {property});
  }

  Error error(Position at, std::string_view what) const {
    return Error(Errc::invalid_argument, fmt::format("line {}, column {}: {}", at.line, at.column, what));
  }

  void set_text(std::string_view text) { e_.text_ = std::string(text); }

  void finish(std::uint32_t root) {
    e_.root_ = root;
    if (e_.constant()) {
      const Outcome o = e_.evaluate({});
      e_.constant_match_ = !o.failed && o.value.type == Type::boolean && o.value.b;
    }
  }

 private:
  Result<std::uint32_t> push(const Node& n, const Info& i) {
    if (e_.nodes_.size() >= limits_.nodes_max) {
      return error(i.at, fmt::format("the expression has more than {} nodes", limits_.nodes_max));
    }
    if (i.depth > limits_.depth_max) {
      return error(i.at, fmt::format("the expression nests deeper than {}", limits_.depth_max));
    }
    e_.nodes_.push_back(n);
    info_.push_back(i);
    return static_cast<std::uint32_t>(e_.nodes_.size() - 1);
  }

  Expression& e_;
  const ParseLimits& limits_;
  std::vector<Info> info_;
};

namespace {

using Id = std::uint32_t;

class Parser {
 public:
  Parser(std::vector<Token> tokens, Builder& b, const ParseLimits& limits)
      : tokens_(std::move(tokens)), b_(b), limits_(limits) {}

  Result<Id> run() {
    auto top = or_expression();
    if (!top.ok()) return top;
    auto root = as_condition(*top);
    if (!root.ok()) return root;
    if (peek().kind != Tok::end) {
      return b_.error(peek().at, fmt::format("expected AND, OR or the end, found {} (text after a complete "
                                             "expression is not ignored)", describe(peek())));
    }
    return root;
  }

 private:
  const Token& peek(std::size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  const Token& take() {
    const Token& t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  bool accept(Tok k) {
    if (peek().kind != k) return false;
    take();
    return true;
  }
  static std::string describe(const Token& t) {
    if (t.kind != Tok::identifier && t.kind != Tok::decimal && t.kind != Tok::floating && t.kind != Tok::string) {
      return std::string(token_name(t.kind));
    }
    return fmt::format("{} \"{}\"", token_name(t.kind), t.text.substr(0, 40));
  }
  Error expected(std::string_view what) const {
    return b_.error(peek().at, fmt::format("expected {}, found {}", what, describe(peek())));
  }
  Status expect(Tok k, std::string_view what) {
    if (accept(k)) return {};
    return expected(what);
  }

  // A nesting level of the recursive descent (parentheses, unary operators), bounded.
  struct Nest {
    explicit Nest(std::size_t& d) : depth(d) { ++depth; }
    ~Nest() { --depth; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;
    std::size_t& depth;
  };

  // RocketMQ's asBooleanExpression: a condition stays, a property becomes a Boolean cast,
  // anything else is an error.
  Result<Id> as_condition(Id id) {
    const Builder::Info& i = b_.info(id);
    if (i.condition) return id;
    if (i.property) return b_.add(Node{Op::bool_cast, id, 0, 0, 0, {}}, Builder::Info{true, false, false, i.at, 1}, {id});
    return b_.error(i.at, "this is a value, not a condition (compare it: = <> > >= < <= BETWEEN IN IS NULL)");
  }

  // checkLessThanOperand: a literal must be a number, and a condition cannot be ordered.
  Status check_orderable(Id id, const Token& op) {
    const Builder::Info& i = b_.info(id);
    if (i.literal && !b_.node(id).value.is_number()) {
      return b_.error(i.at, fmt::format("{} compares numbers; this operand is {}", token_name(op.kind),
                                        type_name(b_.node(id).value.type)));
    }
    if (!i.literal && i.condition) {
      return b_.error(i.at, fmt::format("{} compares numbers; this operand is a condition", token_name(op.kind)));
    }
    return {};
  }

  // checkEqualOperand and checkEqualOperandCompatability.
  Status check_equal(Id l, Id r, const Token& op) {
    for (const Id id : {l, r}) {
      if (b_.info(id).literal && b_.node(id).value.is_null()) {
        return b_.error(b_.info(id).at, fmt::format("NULL cannot be compared by {}; use IS NULL or IS NOT NULL",
                                                    token_name(op.kind)));
      }
    }
    const Builder::Info& li = b_.info(l);
    const Builder::Info& ri = b_.info(r);
    if (li.literal && ri.literal && li.condition && !ri.condition) {
      return b_.error(op.at, fmt::format("a Boolean cannot be compared with {}", type_name(b_.node(r).value.type)));
    }
    return {};
  }

  Result<Id> compare(Op op, Id l, Id r, const Token& at) {
    if (op == Op::eq) {
      if (Status s = check_equal(l, r, at); !s.ok()) return std::move(s).error();
    } else {
      if (Status s = check_orderable(l, at); !s.ok()) return std::move(s).error();
      if (Status s = check_orderable(r, at); !s.ok()) return std::move(s).error();
    }
    return b_.add(Node{op, l, r, 0, 0, {}}, Builder::Info{true, false, false, b_.info(l).at, 1}, {l, r});
  }

  Result<Id> negation(Id inner, Position at) {
    return b_.add(Node{Op::logic_not, inner, 0, 0, 0, {}}, Builder::Info{true, false, false, at, 1}, {inner});
  }

  // One of the logic levels: operands of `next` joined by `op_token`, as one node.
  template <typename Next>
  Result<Id> chain(Tok op_token, Op op, Next next) {
    auto first = (this->*next)();
    if (!first.ok() || peek().kind != op_token) return first;
    const Position at = b_.info(*first).at;
    std::vector<Id> operands;
    auto cond = as_condition(*first);
    if (!cond.ok()) return cond;
    operands.push_back(*cond);
    while (accept(op_token)) {
      auto operand = (this->*next)();
      if (!operand.ok()) return operand;
      auto c = as_condition(*operand);
      if (!c.ok()) return c;
      operands.push_back(*c);
      if (operands.size() > limits_.nodes_max) return b_.error(at, "too many operands");
    }
    return b_.list(op, operands, at);
  }

  Result<Id> or_expression() { return chain(Tok::kw_or, Op::logic_or, &Parser::and_expression); }
  Result<Id> and_expression() { return chain(Tok::kw_and, Op::logic_and, &Parser::equality); }

  Result<Id> equality() {
    auto left = comparison();
    while (left.ok()) {
      const Token op = peek();
      if (op.kind == Tok::eq || op.kind == Tok::ne) {
        take();
        auto right = comparison();
        if (!right.ok()) return right;
        left = compare(Op::eq, *left, *right, op);
        if (left.ok() && op.kind == Tok::ne) left = negation(*left, b_.info(*left).at);
      } else if (op.kind == Tok::kw_is) {
        take();
        const bool negated = accept(Tok::kw_not);
        if (!accept(Tok::kw_null)) return expected(negated ? "NULL after IS NOT" : "NULL or NOT NULL after IS");
        const Position at = b_.info(*left).at;
        left = b_.add(Node{Op::is_null, *left, 0, 0, 0, {}}, Builder::Info{true, false, false, at, 1}, {*left});
        if (left.ok() && negated) left = negation(*left, at);
      } else {
        break;
      }
    }
    return left;
  }

  Result<Id> comparison() {
    auto left = unary();
    while (left.ok()) {
      const Token op = peek();
      Op ordering = Op::constant;
      switch (op.kind) {
        case Tok::gt: ordering = Op::gt; break;
        case Tok::ge: ordering = Op::ge; break;
        case Tok::lt: ordering = Op::lt; break;
        case Tok::le: ordering = Op::le; break;
        default: break;
      }
      if (ordering != Op::constant) {
        take();
        auto right = unary();
        if (!right.ok()) return right;
        left = compare(ordering, *left, *right, op);
        continue;
      }
      const bool negated = op.kind == Tok::kw_not &&
                           (peek(1).kind == Tok::kw_between || peek(1).kind == Tok::kw_in);
      if (negated) take();
      if (accept(Tok::kw_between)) {
        left = between(*left, negated, op.at);
      } else if (accept(Tok::kw_in)) {
        left = in_list(*left, negated, op);
      } else {
        FERRY_ASSERT(!negated, "NOT BETWEEN/IN lost its keyword at line {}, column {}", op.at.line, op.at.column);
        break;
      }
    }
    return left;
  }

  Result<Id> between(Id value, bool negated, Position keyword_at) {
    auto low = unary();
    if (!low.ok()) return low;
    if (Status s = expect(Tok::kw_and, "AND between the bounds of BETWEEN"); !s.ok()) return std::move(s).error();
    auto high = unary();
    if (!high.ok()) return high;
    const Token between_token{Tok::kw_between, {}, keyword_at};
    if (!negated && b_.info(*low).literal && b_.info(*high).literal) {
      const Value& lv = b_.node(*low).value;
      const Value& hv = b_.node(*high).value;
      if (lv.is_null() || hv.is_null()) return b_.error(keyword_at, "the bounds of BETWEEN cannot be NULL");
      const auto c = java_compare(hv, lv);
      if (!c) return b_.error(keyword_at, "the bounds of BETWEEN cannot be compared with each other");
      if (*c < 0) return b_.error(keyword_at, "the low bound of BETWEEN is above its high bound");
    }
    const Position at = b_.info(value).at;
    if (!negated) {
      auto ge = compare(Op::ge, value, *low, between_token);
      if (!ge.ok()) return ge;
      auto le = compare(Op::le, value, *high, between_token);
      if (!le.ok()) return le;
      return b_.list(Op::logic_and, {*ge, *le}, at);
    }
    auto lt = compare(Op::lt, value, *low, between_token);
    if (!lt.ok()) return lt;
    auto gt = compare(Op::gt, value, *high, between_token);
    if (!gt.ok()) return gt;
    return b_.list(Op::logic_or, {*lt, *gt}, at);
  }

  Result<Id> in_list(Id value, bool negated, const Token& op) {
    if (!b_.info(value).property) {
      return b_.error(b_.info(value).at, "IN tests a property; the left of IN must be a property name");
    }
    if (Status s = expect(Tok::lparen, "'(' after IN"); !s.ok()) return std::move(s).error();
    std::vector<std::string> strings;
    do {
      if (peek().kind != Tok::string) return expected("a string in the IN list");
      strings.push_back(string_literal_value(take().text));
    } while (accept(Tok::comma));
    if (Status s = expect(Tok::rparen, "',' or ')' in the IN list"); !s.ok()) return std::move(s).error();
    return b_.in(negated, value, std::move(strings), op.at);
  }

  Result<Id> unary() {
    const Token t = peek();
    if (t.kind != Tok::plus && t.kind != Tok::minus && t.kind != Tok::kw_not) return primary();
    Nest nest(depth_);
    if (depth_ > limits_.depth_max) {
      return b_.error(t.at, fmt::format("the expression nests deeper than {}", limits_.depth_max));
    }
    if (accept(Tok::plus)) return unary();
    if (accept(Tok::minus)) {
      auto inner = unary();
      if (!inner.ok()) return inner;
      return b_.add(Node{Op::negate, *inner, 0, 0, 0, {}}, Builder::Info{false, false, false, t.at, 1}, {*inner});
    }
    if (accept(Tok::kw_not)) {
      auto inner = unary();
      if (!inner.ok()) return inner;
      auto cond = as_condition(*inner);
      if (!cond.ok()) return cond;
      return negation(*cond, t.at);
    }
    return primary();
  }

  Result<Id> primary() {
    const Token t = peek();
    switch (t.kind) {
      case Tok::string:
        take();
        return b_.literal(Value::string(b_.keep(string_literal_value(t.text))), t.at);
      case Tok::decimal: {
        take();
        std::string_view digits = t.text;
        if (digits.back() == 'l' || digits.back() == 'L') digits.remove_suffix(1);
        const auto v = java_parse_long(digits);
        if (!v) return b_.error(t.at, fmt::format("{} is beyond the range of a long", t.text));
        if (*v >= std::numeric_limits<std::int32_t>::min() && *v <= std::numeric_limits<std::int32_t>::max()) {
          return b_.literal(Value::int32(static_cast<std::int32_t>(*v)), t.at);
        }
        return b_.literal(Value::int64(*v), t.at);
      }
      case Tok::floating: {
        take();
        const auto v = java_parse_double(t.text);
        FERRY_ASSERT(v.has_value(), "the float token \"{}\" does not parse", t.text);
        // RocketMQ's createFloat refuses infinity and everything below Double.MIN_VALUE: 0.0 too.
        if (*v > std::numeric_limits<double>::max()) return b_.error(t.at, fmt::format("{} is beyond the range of a double", t.text));
        if (*v < std::numeric_limits<double>::denorm_min()) {
          return b_.error(t.at, fmt::format("{} is below Double.MIN_VALUE (RocketMQ refuses a float literal of 0; "
                                            "write the integer 0)", t.text));
        }
        return b_.literal(Value::float64(*v), t.at);
      }
      case Tok::kw_true: take(); return b_.literal(Value::boolean(true), t.at);
      case Tok::kw_false: take(); return b_.literal(Value::boolean(false), t.at);
      case Tok::kw_null: take(); return b_.literal(Value::null(), t.at);
      case Tok::identifier: take(); return b_.property(t.text, t.at);
      case Tok::lparen: {
        take();
        Nest nest(depth_);  // counted like a unary operator: 64 parentheses in a row at most
        if (depth_ > limits_.depth_max) {
          return b_.error(t.at, fmt::format("the expression nests deeper than {}", limits_.depth_max));
        }
        auto inner = or_expression();
        if (!inner.ok()) return inner;
        if (Status s = expect(Tok::rparen, "')'"); !s.ok()) return std::move(s).error();
        return inner;
      }
      default: break;
    }
    return expected("a value (a property, a string, a number, TRUE, FALSE, NULL or '(')");
  }

  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
  std::size_t depth_ = 0;
  Builder& b_;
  const ParseLimits& limits_;
};

}  // namespace

Result<Expression> parse(std::string_view text, const ParseLimits& limits) {
  if (text.size() > limits.text_bytes_max) {
    return Error(Errc::invalid_argument,
                 fmt::format("the expression has {} bytes, more than {}", text.size(), limits.text_bytes_max));
  }
  auto tokens = tokenize(text, limits.text_bytes_max + 1);
  if (!tokens.ok()) return std::move(tokens).error();
  Expression e;
  Builder b(e, limits);
  b.set_text(text);
  Parser p(std::move(*tokens), b, limits);
  auto root = p.run();
  if (!root.ok()) return std::move(root).error();
  b.finish(*root);
  return e;
}

}  // namespace ferry::sql92
