// The Jinja interpreter on its own: whitespace control as Hugging Face configures jinja2
// (expected strings come from Python's jinja2), undefined semantics, errors that name
// the template line and construct, and robustness on random input.
#include <QtTest>

#include <random>

#include "engine/common/error.h"
#include "engine/model/jinja/template.h"

using namespace lwb;
using lwb::jinja::Template;
using ojson = nlohmann::ordered_json;

namespace {

std::string render(const std::string& source, const ojson& vars = ojson::object()) { return Template(source).render(vars); }

// The message of the lwb::Error that parsing or rendering throws ("" when none).
std::string errorOf(const std::string& source, const ojson& vars = ojson::object()) {
  try {
    render(source, vars);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

class TestJinja : public QObject {
  Q_OBJECT

 private slots:
  void whitespaceControl_data() {
    QTest::addColumn<QString>("source");
    QTest::addColumn<QString>("expected");
    QTest::newRow("trim+lstrip blocks") << "a\n  {% if true %}\n    b\n  {% endif %}\nc\n" << "a\n    b\nc";
    QTest::newRow("inline blocks keep spaces") << "a  {% if true %}b{% endif %}  c" << "a  b  c";
    QTest::newRow("minus on output") << "x {{- ' y ' -}} z" << "x y z";
    QTest::newRow("minus on comment") << "  {#- c -#}  x\n" << "x";
    QTest::newRow("for lines") << "{% for i in [1,2] %}\n{{ i }}\n{% endfor %}\n" << "1\n2\n";
    QTest::newRow("plus keeps") << "  {%+ if true %}k{% endif +%}\nz" << "  k\nz";
    QTest::newRow("crlf") << "line1\r\nline2\r\n{% if true %}\r\nx\r\n{% endif %}\r\n" << "line1\nline2\nx\n";
    QTest::newRow("raw") << "{% raw %}  {{ x }}\n{% endraw %}\nafter" << "  {{ x }}\nafter";
    QTest::newRow("outputs keep newline, last dropped") << "{{ 'a' }}\n{{ 'b' }}\n" << "a\nb";
    QTest::newRow("block set") << "{% set x %}\n  inner\n{% endset %}[{{ x }}]" << "[  inner\n]";
  }
  void whitespaceControl() {
    QFETCH(QString, source);
    QFETCH(QString, expected);
    QCOMPARE(QString::fromStdString(render(source.toStdString())), expected);
  }

  void undefinedBehavesAsJinja2Default() {
    QCOMPARE(render("[{{ nope }}][{{ nope | length }}][{% for x in nope %}x{% endfor %}][{{ nope is defined }}]"),
             std::string("[][0][][False]"));
    QCOMPARE(render("{{ m.missing is defined }} {{ m.missing | default('d') }}", {{"m", {{"a", 1}}}}),
             std::string("False d"));
    QCOMPARE(errorOf("\n{{ m.missing.deeper }}", {{"m", {{"a", 1}}}}),
             std::string("template line 2: 'dict object' has no attribute 'missing'"));
    QCOMPARE(errorOf("{{ nope + 1 }}"), std::string("template line 1: 'nope' is undefined"));
    QCOMPARE(errorOf("{{ nope() }}"), std::string("template line 1: 'nope' is undefined"));
  }

  void errorsNameLineAndConstruct() {
    QCOMPARE(errorOf("ok\n{% include 'x.jinja' %}"), std::string("template line 2: unsupported construct '{% include %}'"));
    QCOMPARE(errorOf("{% extends 'base' %}"), std::string("template line 1: unsupported construct '{% extends %}'"));
    QCOMPARE(errorOf("{% for x in y recursive %}{% endfor %}"),
             std::string("template line 1: unsupported construct 'recursive' for loop"));
    QCOMPARE(errorOf("\n\n{{ 'a' | xmlattr }}"), std::string("template line 3: unsupported filter 'xmlattr'"));
    QCOMPARE(errorOf("{{ 1 is prime }}"), std::string("template line 1: unsupported test 'prime'"));
    QCOMPARE(errorOf("{% if true %}never closed"),
             std::string("template line 1: unexpected end of template: '{% if %}' needs '{% endif %}'"));
    QCOMPARE(errorOf("{{ 'unterminated }}"), std::string("template line 1: unterminated string literal"));
    QCOMPARE(errorOf("a\n{{ x"), std::string("template line 2: unterminated '{{'"));
    QCOMPARE(errorOf("{% endfor %}"), std::string("template line 1: unexpected '{% endfor %}'"));
    QCOMPARE(errorOf("{% break %}"), std::string("template line 1: 'break' outside a for loop"));
    QCOMPARE(errorOf("{{ 1 + }}"), std::string("template line 1: unexpected end of expression"));
  }

  void raiseExceptionAndSandbox() {
    QCOMPARE(errorOf("x\n{{ raise_exception('Roles must alternate') }}"), std::string("template line 2: Roles must alternate"));
    const std::string e = errorOf("{{ messages.append(1) }}", {{"messages", ojson::array()}});
    QVERIFY2(e.find("unsafe") != std::string::npos, e.c_str());
    QCOMPARE(render("{{ x.__class__ is defined }}", {{"x", "s"}}), std::string("False"));
    QCOMPARE(render("{{ strftime_now('%Y') | length }}"), std::string("4"));
  }

  void scopingAsJinja2() {
    // {% set %} in a loop stays in the loop; a namespace carries values out.
    QCOMPARE(render("{% set x = 1 %}{% for i in [1, 2] %}{% set x = i %}{% endfor %}{{ x }}"), std::string("1"));
    QCOMPARE(render("{% set ns = namespace(x=1) %}{% for i in [1, 2] %}{% set ns.x = i %}{% endfor %}{{ ns.x }}"),
             std::string("2"));
    QCOMPARE(render("{% if true %}{% set y = 3 %}{% endif %}{{ y }}"), std::string("3"));
    QCOMPARE(errorOf("{% set s = 'str' %}{% set s.x = 1 %}"),
             std::string("template line 1: cannot assign attribute 'x' on 's', which is not a namespace()"));
  }

  void macrosAndNamespacesMakeNoCycles() {
    QCOMPARE(errorOf("{% set ns = namespace() %}{% set ns.me = [ns] %}"),
             std::string("template line 1: a namespace attribute cannot hold a namespace (it could contain itself)"));
    QCOMPARE(errorOf("{% set ns = namespace() %}{% for i in [1] %}{% macro m() %}{{ i }}{% endmacro %}"
                     "{% set ns.m = m %}{% endfor %}{{ ns.m() }}"),
             std::string("template line 1: macro 'm' called after the block that defined it ended"));
    QCOMPARE(render("{% macro m(x) %}<{{ x }}>{% endmacro %}{% for i in [1, 2] %}{{ m(i) }}{% endfor %}"),
             std::string("<1><2>"));
  }

  void readsVariable() {
    const Template t("{% if enable_thinking is defined %}{{ messages[0].content | trim }}{% endif %}");
    QVERIFY(t.readsVariable("enable_thinking"));
    QVERIFY(t.readsVariable("messages"));
    QVERIFY(!t.readsVariable("tools"));
  }

  void hostileTemplatesAreBounded() {
    QVERIFY(errorOf("{{ " + std::string(500, '(') + "1" + std::string(500, ')') + " }}").find("nested too deeply") != std::string::npos);
    QVERIFY(errorOf("{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}").find("nested too deeply") != std::string::npos);
    QVERIFY(errorOf("{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}")
                .find("too much work") != std::string::npos);
    QVERIFY(errorOf("{{ 'x' * 100000000000 }}").find("too large") != std::string::npos);
    QVERIFY(errorOf("{{ 9223372036854775807 + 1 }}").find("overflow") != std::string::npos);
    QVERIFY(errorOf("{{ [0] * 100000000 }}").find("too large") != std::string::npos);
    QVERIFY(errorOf("{% set ns = namespace(s='ab') %}{% for i in range(40) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}")
                .find("larger than 16 MiB") != std::string::npos);
    QVERIFY(errorOf("{{ '%d' % 1e300 }}").find("does not fit") != std::string::npos);
    QCOMPARE(render("{{ (-1) ** 3 }} {{ (-1) ** 9223372036854775807 }} {{ 2 ** 62 }} {{ 3 ** 0 }}"),
             std::string("-1 -1 4611686018427387904 1"));
  }

  // Random token soup either renders or throws lwb::Error; nothing else escapes.
  void randomTemplatesNeverCrash() {
    const std::vector<std::string> pieces = {
        "{{", "}}", "{%", "%}", "{#", "#}", "-", "+", " if ", " for ", " in ", " endif", " endfor", " set ", "=",
        " x ", " messages", "[", "]", "(", ")", "{", "}", ":", ",", "|", " trim", " length", " is ", " not ", "'s'",
        "\"t\"", "1", "2.5", ".", "loop", "index", " else ", " macro ", " endmacro", " raw ", " endraw ", "\n", "~",
        "*", "**", "/", "//", "%", " and ", " or ", "none", "true", "ns", " namespace", " tojson", " elif "};
    std::mt19937 rng(1234);
    int rendered = 0;
    for (int i = 0; i < 3000; ++i) {
      std::string source;
      const int n = 1 + int(rng() % 24);
      for (int k = 0; k < n; ++k) source += pieces[rng() % pieces.size()];
      try {
        render(source, {{"messages", {{{"role", "user"}, {"content", " hi "}}}}, {"x", 3}});
        ++rendered;
      } catch (const Error&) {
      }
    }
    QVERIFY(rendered > 100);  // the soup is not all syntax errors
  }
};

QTEST_GUILESS_MAIN(TestJinja)
#include "tst_jinja.moc"
