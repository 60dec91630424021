// The window in Japanese (ui/translations/llm-workbench_ja.ts): with the Japanese
// translator installed, the main window (with a model and a paused load), its dialogs
// and the remote window look up no text of their own that has no translation, show no
// English sentence (words on a short allowlist excepted: knob and metric names, units,
// model and device names), and every one-line label's, button's and tab's text fits its
// widget at the default size. The .ts itself has no unfinished message. Saves the
// Japanese window as window-ja.png (tools/update-screenshots.sh copies it to docs/images/).
#include <QAbstractItemView>
#include <QComboBox>
#include <QDockWidget>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMutex>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QSet>
#include <QSettings>
#include <QSpinBox>
#include <QTabBar>
#include <QTemporaryDir>
#include <QTextDocument>
#include <QTextDocumentFragment>
#include <QTranslator>
#include <QXmlStreamReader>
#include <QtTest>
#include <qcustomplot.h>

#include "common/random_model.h"
#include "engine/config/knobs.h"
#include "engine/exec/sim/hardware_profile.h"
#include "engine/model/model.h"
#include "lessons/lessons.h"
#include "ui/bridge/engine_bridge.h"
#include "ui/language.h"
#include "ui/main_window.h"
#include "ui/panels/load_panel.h"
#include "ui/panels/serve_dialog.h"
#include "ui/panels/simulate_dialog.h"
#include "ui/remote/remote_window.h"
#include "ui/theme.h"

using namespace lwb;
using namespace lwb::ui;

namespace {
constexpr int kTimeoutMs = 60000;

// The window's translator, wrapped: remembers each lookup of the window's own texts that
// found no translation. Qt's own contexts (QDialogButtonBox, ...) are qtbase_ja's, and
// "Lessons" is left out until lessons/ marks its findings (the lessons branch).
class RecordingTranslator : public QTranslator {
 public:
  explicit RecordingTranslator(QTranslator* inner) : inner_(inner) {}
  QString translate(const char* context, const char* source, const char* disambiguation, int n) const override {
    QString t = inner_->translate(context, source, disambiguation, n);
    if (t.isEmpty() && source && *source && ownContext(context)) {
      QMutexLocker lock(&mutex_);
      misses_.insert(QStringLiteral("%1: \"%2\"").arg(QString::fromUtf8(context), QString::fromUtf8(source)));
    }
    return t;
  }
  bool isEmpty() const override { return false; }
  void clear() {
    QMutexLocker lock(&mutex_);
    misses_.clear();
  }
  QStringList misses() const {
    QMutexLocker lock(&mutex_);
    QStringList out(misses_.begin(), misses_.end());
    out.sort();
    return out;
  }

 private:
  static bool ownContext(const char* c) {
    const QString s = QString::fromUtf8(c);
    return s.startsWith(QLatin1String("lwb::")) ||
           QStringList{"QObject", "Knobs", "PrefixMiss", "ModelLoad", "RemoteSession"}.contains(s);
  }
  QTranslator* inner_;
  mutable QMutex mutex_;
  mutable QSet<QString> misses_;
};

struct Shown {
  QString text;
  QString where;  // the widget's class and object name, for the failure message
};

QString plain(const QString& s) {
  QString t = Qt::mightBeRichText(s) ? QTextDocumentFragment::fromHtml(s).toPlainText() : s;
  return t.remove(QRegularExpression(QStringLiteral("&(?=\\S)")));  // mnemonics
}

QString where(const QObject* o) {
  QString s = QString::fromLatin1(o->metaObject()->className());
  for (const QObject* p = o; p; p = p->parent())
    if (!p->objectName().isEmpty()) return s + QStringLiteral(" in ") + p->objectName();
  return s;
}

void addText(QList<Shown>& out, const QString& text, const QObject* o) {
  if (!text.trimmed().isEmpty()) out.push_back({plain(text), where(o)});
}

void collectMenu(const QMenu* menu, QList<Shown>& out) {
  for (QAction* a : menu->actions()) {
    addText(out, a->text(), menu);
    if (a->toolTip() != plain(a->text())) addText(out, a->toolTip(), menu);
    if (a->menu()) collectMenu(a->menu(), out);
  }
}

void collectPlot(QCustomPlot* plot, QList<Shown>& out) {
  for (QCPAxisRect* rect : plot->axisRects())
    for (QCPAxis* axis : rect->axes()) addText(out, axis->label(), plot);
  for (int i = 0; i < plot->plottableCount(); ++i) addText(out, plot->plottable(i)->name(), plot);
  for (int i = 0; i < plot->itemCount(); ++i)
    if (auto* t = qobject_cast<QCPItemText*>(plot->item(i)); t && t->visible()) addText(out, t->text(), plot);
  for (int i = 0; i < plot->plotLayout()->elementCount(); ++i)
    if (auto* t = qobject_cast<QCPTextElement*>(plot->plotLayout()->elementAt(i))) addText(out, t->text(), plot);
}

// Every text a widget shows or explains itself with.
void collectWidget(const QWidget* w, QList<Shown>& out) {
  addText(out, w->toolTip(), w);
  if (auto* l = qobject_cast<const QLabel*>(w)) addText(out, l->text(), w);
  if (auto* b = qobject_cast<const QAbstractButton*>(w)) addText(out, b->text(), w);
  if (auto* g = qobject_cast<const QGroupBox*>(w)) addText(out, g->title(), w);
  if (auto* d = qobject_cast<const QDockWidget*>(w)) addText(out, d->windowTitle(), w);
  if (auto* e = qobject_cast<const QLineEdit*>(w)) addText(out, e->placeholderText(), w);
  if (auto* e = qobject_cast<const QPlainTextEdit*>(w)) addText(out, e->placeholderText(), w);
  if (auto* e = qobject_cast<const QTextEdit*>(w)) addText(out, e->placeholderText(), w);
  if (auto* t = qobject_cast<const QTabBar*>(w))
    for (int i = 0; i < t->count(); ++i) {
      addText(out, t->tabText(i), w);
      addText(out, t->tabToolTip(i), w);
    }
  if (auto* c = qobject_cast<const QComboBox*>(w))
    for (int i = 0; i < c->count(); ++i) {
      addText(out, c->itemText(i), w);
      addText(out, c->itemData(i, Qt::ToolTipRole).toString(), w);
    }
  if (auto* s = qobject_cast<const QSpinBox*>(w)) {
    addText(out, s->specialValueText(), w);
    addText(out, s->prefix() + s->suffix(), w);
  }
  if (auto* s = qobject_cast<const QDoubleSpinBox*>(w)) {
    addText(out, s->specialValueText(), w);
    addText(out, s->prefix() + s->suffix(), w);
  }
  if (auto* v = qobject_cast<const QAbstractItemView*>(w); v && v->model())
    for (int c = 0; c < v->model()->columnCount(); ++c) {
      addText(out, v->model()->headerData(c, Qt::Horizontal, Qt::DisplayRole).toString(), w);
      addText(out, v->model()->headerData(c, Qt::Horizontal, Qt::ToolTipRole).toString(), w);
    }
  if (auto* m = qobject_cast<const QMenu*>(w)) collectMenu(m, out);
  if (auto* p = qobject_cast<QCustomPlot*>(const_cast<QWidget*>(w))) collectPlot(p, out);
}

QList<Shown> collectAll(QWidget* root) {
  QList<Shown> out;
  addText(out, root->windowTitle(), root);
  collectWidget(root, out);
  for (const QWidget* w : root->findChildren<QWidget*>()) collectWidget(w, out);
  for (const QAction* a : root->findChildren<QAction*>()) {
    addText(out, a->text(), a);
    if (a->toolTip() != plain(a->text())) addText(out, a->toolTip(), a);
  }
  return out;
}

bool readsJapanese(const QString& s) {
  for (QChar c : s)
    if (c.script() == QChar::Script_Hiragana || c.script() == QChar::Script_Katakana || c.script() == QChar::Script_Han)
      return true;
  return false;
}

// Words that stay as they are in Japanese (docs/translation.md): vLLM's metric and unit
// abbreviations, formats, product names, vLLM's finish reasons and sampling parameters,
// bench's option names, key names, and each language's own name. Identifiers (with an
// underscore, a digit, a dot or a colon: knob names, vllm:metric names, file names) are
// never words here; the knob table's names and choices are added at run time, and so are
// the model's and the device's names and the simulator's hardware descriptions.
QSet<QString> baseAllowlist() {
  return {"TTFT", "ITL", "TPOT", "e2e", "KV", "ms", "tok", "MiB", "GiB", "req", "vLLM", "LLM", "GPU", "GPUs", "CPU",
          "CUDA", "JSON", "CSV", "PNG", "GGUF", "SLO", "SLOs", "API", "HTTP", "URL", "ID", "id", "EOS", "SGLang",
          "llama", "cpp", "Qwen", "Llama", "Hugging", "Face", "Perfetto", "Chrome", "NVIDIA", "AMD", "Intel", "PCIe",
          "SXM", "NVLink", "stop", "length", "abort", "temperature", "seed", "tokenizer", "English", "Workbench",
          "QCustomPlot", "GPL", "load", "chat", "on", "off", "inf", "Ctrl", "Shift", "Enter", "Esc", "Space",
          "Pause", "fp", "min", "max", "tokens", "BlockStored"};
}

QStringList untranslatedWords(const QString& text, const QSet<QString>& allow) {
  QStringList words;
  static const QRegularExpression token(QStringLiteral("[A-Za-z0-9_.:/'\\-+]+"));
  for (auto it = token.globalMatch(text); it.hasNext();) {
    const QString t = it.next().captured().remove(QRegularExpression(QStringLiteral("^[-'.:/]+|[-'.:/]+$")));
    const bool identifier = t.contains(QRegularExpression(QStringLiteral("[0-9_.:/+]")));
    if (t.size() < 2 || identifier || allow.contains(t)) continue;
    words << t;
  }
  return words;
}

// What the widget's text needs against the room it has: the contents rectangle, less a
// check box's indicator or a button's frame as the style draws them; "" when it fits.
QString fitProblem(const QWidget* w) {
  if (!w->isVisible() || w->width() <= 0) return {};
  const QFontMetrics fm(w->font());
  auto lineWidth = [&fm](const QString& text) {
    int widest = 0;
    for (const QString& line : text.split(QLatin1Char('\n'))) widest = std::max(widest, fm.horizontalAdvance(line));
    return widest;
  };
  int need = 0, room = 0;
  QString text;
  if (auto* l = qobject_cast<const QLabel*>(w)) {
    if (l->wordWrap() || l->text().isEmpty() || l->sizePolicy().horizontalPolicy() == QSizePolicy::Ignored) return {};
    text = l->text();
    if (Qt::mightBeRichText(text)) {
      QTextDocument doc;
      doc.setDefaultFont(l->font());
      doc.setDocumentMargin(0);
      doc.setHtml(text);
      need = int(std::ceil(doc.idealWidth()));
    } else {
      need = lineWidth(l->buddy() ? plain(text) : text);  // '&' marks a mnemonic only with a buddy
    }
    room = l->contentsRect().width() - 2 * l->margin() - std::max(0, l->indent());
  } else if (auto* b = qobject_cast<const QAbstractButton*>(w)) {
    text = plain(b->text());
    if (text.isEmpty()) return {};
    need = lineWidth(text);
    // The rectangle the style draws the text in.
    const QStyle* st = b->style();
    QStyleOptionButton opt;
    opt.initFrom(b);
    opt.text = b->text();
    opt.icon = b->icon();
    opt.iconSize = b->iconSize();
    room = b->width();
    if (auto* p = qobject_cast<const QPushButton*>(b)) {
      if (p->autoDefault() || p->isDefault()) opt.features |= QStyleOptionButton::AutoDefaultButton;
      room = st->subElementRect(QStyle::SE_PushButtonContents, &opt, b).width();
    } else if (qobject_cast<const QCheckBox*>(b)) {
      room = st->subElementRect(QStyle::SE_CheckBoxContents, &opt, b).width();
    } else if (qobject_cast<const QRadioButton*>(b)) {
      room = st->subElementRect(QStyle::SE_RadioButtonContents, &opt, b).width();
    }
    if (!b->icon().isNull()) room -= b->iconSize().width() + 4;
  } else if (auto* t = qobject_cast<const QTabBar*>(w)) {
    for (int i = 0; i < t->count(); ++i) {
      const int tabNeed = lineWidth(plain(t->tabText(i)));
      const int tabRoom = t->tabRect(i).width() - t->style()->pixelMetric(QStyle::PM_TabBarTabHSpace, nullptr, t);
      if (t->isTabVisible(i) && tabNeed > tabRoom + 1)
        return QStringLiteral("tab '%1' needs %2 px, has %3").arg(t->tabText(i)).arg(tabNeed).arg(tabRoom);
    }
    return {};
  } else if (auto* h = qobject_cast<const QHeaderView*>(w); h && h->model()) {
    // A section's title is elided, not wrapped: it must fit the section's width.
    const int margin = 2 * h->style()->pixelMetric(QStyle::PM_HeaderMargin, nullptr, h);
    const QFontMetrics hfm(h->font());
    for (int i = 0; i < h->count(); ++i) {
      const QString title = h->model()->headerData(i, h->orientation(), Qt::DisplayRole).toString();
      const int size = h->orientation() == Qt::Horizontal ? h->sectionSize(i) : h->width();
      // Stretched sections share what the view has left; the others were sized for their titles.
      if (h->isSectionHidden(i) || title.isEmpty() || h->sectionResizeMode(i) == QHeaderView::Stretch ||
          (h->stretchLastSection() && i == h->count() - 1))
        continue;
      if (hfm.horizontalAdvance(title) + margin > size + 1)
        return QStringLiteral("%1 header '%2' needs %3 px, has %4")
            .arg(where(w), title)
            .arg(hfm.horizontalAdvance(title) + margin)
            .arg(size);
    }
    return {};
  } else {
    return {};
  }
  if (need <= room + 1) return {};
  return QStringLiteral("%1 '%2' needs %3 px, has %4").arg(where(w), plain(text)).arg(need).arg(room);
}

QStringList fitProblems(QWidget* root) {
  QStringList out;
  for (QWidget* w : root->findChildren<QWidget*>())
    if (QString p = fitProblem(w); !p.isEmpty()) out << p;
  return out;
}

void saveShot(QWidget* w, const QString& name) {
  const QString dir = qEnvironmentVariable("LWB_TEST_ARTIFACTS", QDir::tempPath() + "/lwb-test-artifacts");
  QDir().mkpath(dir);
  QVERIFY(w->grab().save(dir + "/" + name + ".png", "PNG"));
}
}  // namespace

class TestUiTranslation : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void cleanupTestCase();
  void tsFileIsComplete();
  void languageChoiceResolves();
  void windowWithLoad();
  void everyLookupIsTranslated();
  void noEnglishSentenceShows();
  void textsFitTheirWidgets();
  void screenshot();
  void dialogsAreTranslated();
  void remoteWindowIsTranslated();

 private:
  QStringList englishTexts(QWidget* root) const;
  QTemporaryDir tmp_;
  RecordingTranslator* recorder_ = nullptr;
  QSet<QString> allow_;
  std::unique_ptr<MainWindow> window_;
};

void TestUiTranslation::initTestCase() {
  QStandardPaths::setTestModeEnabled(true);
  QCoreApplication::setOrganizationName("llm-workbench-test");
  QTranslator* ja = loadWindowTranslator(QStringLiteral("ja"), this);
  QVERIFY2(ja, "the Japanese .qm is not in the program's resources");
  recorder_ = new RecordingTranslator(ja);
  QCoreApplication::installTranslator(recorder_);
  // The recorder catches a text the .ts lacks (so an empty list below means something).
  QCOMPARE(QCoreApplication::translate("lwb::ui::MainWindow", "No such text"), QString("No such text"));
  QCOMPARE(recorder_->misses(), QStringList{"lwb::ui::MainWindow: \"No such text\""});
  recorder_->clear();
  allow_ = baseAllowlist();
  for (const Knob& k : knobTable()) {
    allow_ << QString::fromUtf8(k.name.data(), int(k.name.size()));
    for (std::string_view c : k.choices) allow_ << QString::fromUtf8(c.data(), int(c.size()));
  }
  // The simulator's hardware presets are named and described by their files (data).
  for (const std::string& name : sim::hardwarePresetNames())
    for (const QString& w : QString::fromStdString(sim::loadHardwareProfile(name).description)
                                .split(QRegularExpression("[^A-Za-z0-9_]+"), Qt::SkipEmptyParts))
      allow_ << w;
  // The lessons' names and questions are lessons/'s, translated once it marks them.
  for (const Lesson& l : lessons()) {
    allow_ << QString::fromStdString(l.name);
    for (const QString& w : QString::fromStdString(l.question).split(QRegularExpression("\\W+"), Qt::SkipEmptyParts))
      allow_ << w;
  }
}

void TestUiTranslation::cleanupTestCase() {
  window_.reset();
  QCoreApplication::removeTranslator(recorder_);
  delete recorder_;
}

// Every message of the .ts has its translation: nothing unfinished, vanished or empty.
void TestUiTranslation::tsFileIsComplete() {
  QFile f(QStringLiteral(LWB_SOURCE_DIR "/ui/translations/llm-workbench_ja.ts"));
  QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(f.fileName()));
  QXmlStreamReader xml(&f);
  QString language, source, element, type, text;
  int numMessages = 0;
  QStringList bad;
  while (!xml.atEnd()) {
    xml.readNext();
    if (xml.isStartElement()) {
      element = xml.name().toString();
      text.clear();
      if (element == QLatin1String("TS")) language = xml.attributes().value("language").toString();
      if (element == QLatin1String("message")) ++numMessages;
      if (element == QLatin1String("translation")) type = xml.attributes().value("type").toString();
    } else if (xml.isCharacters()) {
      text += xml.text();
    } else if (xml.isEndElement()) {
      const bool numerus = xml.name() == QLatin1String("translation") && source.contains(QLatin1String("%n"));
      if (xml.name() == QLatin1String("source")) source = text;
      if ((xml.name() == QLatin1String("translation") && !numerus) || xml.name() == QLatin1String("numerusform"))
        if (!type.isEmpty() || text.trimmed().isEmpty())
          bad << QStringLiteral("\"%1\" (%2)").arg(source, type.isEmpty() ? QStringLiteral("empty") : type);
      text.clear();
    }
  }
  QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
  QCOMPARE(language, QString("ja_JP"));
  QVERIFY(numMessages > 400);
  QVERIFY2(bad.isEmpty(), qPrintable(bad.join('\n')));
}

void TestUiTranslation::languageChoiceResolves() {
  QCOMPARE(resolveLanguage("ja"), QString("ja"));
  QCOMPARE(resolveLanguage("en"), QString("en"));
  QVERIFY(QStringList({"en", "ja"}).contains(resolveLanguage("system")));
  try {
    resolveLanguage("fr");
    QFAIL("fr was accepted");
  } catch (const std::exception& e) {
    QVERIFY2(QString(e.what()).contains("'fr'") && QString(e.what()).contains("system, en, ja"), e.what());
  }
  saveLanguage("ja");
  QCOMPARE(savedLanguage(), QString("ja"));
  saveLanguage("klingon");  // an unknown saved value reads as the default
  QCOMPARE(savedLanguage(), QString("system"));
  QSettings().remove("ui/language");
  QCOMPARE(QCoreApplication::translate("Knobs", "off"), QString("オフ"));  // the recorder passes the .qm through
}

// The main window on a model, with a load paused while requests hold KV blocks, so the
// charts, the KV map, the tables and the status bar all show their texts.
void TestUiTranslation::windowWithLoad() {
  QString modelDir;
  try {
    modelDir = QString::fromStdString(defaultModelDir());
  } catch (const std::exception&) {
    modelDir = QString::fromStdString(writeRandomLlamaModel(tmp_.filePath("random").toStdString()));
  }
  WindowOptions options;
  options.modelDir = modelDir;
  options.knobs.executor.backend = "cpu";
  options.knobs.executor.numThreads = 1;
  options.restoreLayout = false;
  theme::apply(*qApp);
  window_ = std::make_unique<MainWindow>(options);
  window_->resize(1400, 900);
  window_->show();
  QTRY_VERIFY_WITH_TIMEOUT(window_->bridge()->attached(), kTimeoutMs);
  allow_ << QFileInfo(modelDir).fileName();
  LoadPanel* load = window_->load();
  WorkloadOptions first;  // finishes: the latency charts, the prefix cache and the table fill
  first.numPrompts = 12;
  first.requestRate = 40;
  first.inputLen = 40;
  first.outputLen = 12;
  first.sharedPrefixLen = 48;
  first.numPrefixGroups = 2;
  first.ignoreEos = true;
  load->setOptions(first);
  QVERIFY(load->start());
  QTRY_COMPARE_WITH_TIMEOUT(load->numFinished(), 12, kTimeoutMs);
  WorkloadOptions w;  // still running when paused: the batch chart and the KV map show it
  w.numPrompts = 8;
  w.requestRate = std::numeric_limits<double>::infinity();
  w.inputLen = 64;
  w.outputLen = 400;
  w.sharedPrefixLen = 32;
  w.ignoreEos = true;
  load->setOptions(w);
  QVERIFY(load->start());
  EngineBridge* bridge = window_->bridge();
  QTRY_VERIFY_WITH_TIMEOUT(bridge->lastSnapshot() && bridge->lastSnapshot()->numRunning > 0 &&
                               bridge->lastSnapshot()->totals.generatedTokens > 12 * 12 + 40,
                           kTimeoutMs);
  bridge->setPaused(true);
  bridge->poll();
  for (const QString& word : QString::fromStdString(bridge->lastSnapshot()->device.name).split(' ', Qt::SkipEmptyParts))
    allow_ << word;
  QTest::qWait(400);  // the status bar's refresh and queued replots
}

void TestUiTranslation::everyLookupIsTranslated() {
  // Texts are looked up as views are built and refreshed: open every dock once.
  for (QDockWidget* d : window_->docks()) {
    d->show();
    d->raise();
    QCoreApplication::processEvents();
  }
  for (QMenu* m : window_->menuBar()->findChildren<QMenu*>()) emit m->aboutToShow();
  window_->resetLayout();
  QCoreApplication::processEvents();
  const QStringList misses = recorder_->misses();
  QVERIFY2(misses.isEmpty(), qPrintable("no Japanese for:\n" + misses.join('\n')));
}

QStringList TestUiTranslation::englishTexts(QWidget* root) const {
  QStringList bad;
  QSet<QString> seen;
  // Qt's own texts (standard buttons, a tab's close button): qtbase_ja's when installed.
  static const QStringList qtTexts = {"OK", "Cancel", "Close Tab", "Close"};
  for (const Shown& s : collectAll(root)) {
    if (readsJapanese(s.text) || seen.contains(s.text) || qtTexts.contains(s.text)) continue;
    seen.insert(s.text);
    if (const QStringList words = untranslatedWords(s.text, allow_); !words.isEmpty())
      bad << QStringLiteral("%1: \"%2\" (%3)").arg(s.where, s.text.left(160), words.join(' '));
  }
  return bad;
}

void TestUiTranslation::noEnglishSentenceShows() {
  QVERIFY(collectAll(window_.get()).size() > 500);  // the walk reaches the docks, menus and charts
  {  // the check itself: an English sentence is caught, a Japanese one with knob names is not
    QWidget probe;
    new QLabel(QStringLiteral("Stop the engine first"), &probe);
    new QLabel(QStringLiteral("max_num_seqs を大きくする（TTFT、KV）"), &probe);
    QCOMPARE(englishTexts(&probe).size(), 1);
  }
  const QStringList bad = englishTexts(window_.get());
  QVERIFY2(bad.isEmpty(), qPrintable("English in the Japanese window:\n" + bad.join('\n')));
}

// At the default size, dock by dock (a tabbed dock lays out when raised).
void TestUiTranslation::textsFitTheirWidgets() {
  QStringList bad;
  for (QDockWidget* d : window_->docks()) {
    d->raise();
    QTest::qWait(20);
    bad << fitProblems(d);
  }
  window_->resetLayout();
  QTest::qWait(50);
  bad << fitProblems(window_->statusBar()) << fitProblems(window_->menuBar());
  bad.removeDuplicates();
  QVERIFY2(bad.isEmpty(), qPrintable("cut off in Japanese:\n" + bad.join('\n')));
}

void TestUiTranslation::screenshot() {
  window_->resetLayout();
  QTest::qWait(300);  // queued replots
  saveShot(window_.get(), "window-ja");
  window_->bridge()->setPaused(false);
  window_->load()->stop();
}

void TestUiTranslation::dialogsAreTranslated() {
  QStringList bad;
  {
    SimulateDialog dialog(EngineConfig{}, window_.get());
    dialog.show();
    QTest::qWait(50);
    bad << englishTexts(&dialog) << fitProblems(&dialog);
    dialog.reject();
  }
  {
    ServeDialog dialog(ServeSettings{}, window_.get());
    dialog.show();
    QTest::qWait(20);
    bad << englishTexts(&dialog) << fitProblems(&dialog);
    dialog.reject();
  }
  const QStringList misses = recorder_->misses();
  QVERIFY2(misses.isEmpty(), qPrintable("no Japanese for:\n" + misses.join('\n')));
  QVERIFY2(bad.isEmpty(), qPrintable(bad.join('\n')));
}

// The remote window on a server that is not there: every view is built, and the status
// says so (its cause, from the connection, may stay English inside the Japanese frame).
void TestUiTranslation::remoteWindowIsTranslated() {
  RemoteWindow w({"http://127.0.0.1:1", "", "", 0.1});
  w.resize(1400, 900);
  w.show();
  QTRY_VERIFY_WITH_TIMEOUT(!w.statusText().isEmpty(), kTimeoutMs);
  QTest::qWait(200);
  for (QDockWidget* d : w.findChildren<QDockWidget*>()) {
    d->show();
    d->raise();
    QCoreApplication::processEvents();
  }
  const QStringList misses = recorder_->misses();
  QVERIFY2(misses.isEmpty(), qPrintable("no Japanese for:\n" + misses.join('\n')));
  const QStringList bad = englishTexts(&w);
  QVERIFY2(bad.isEmpty(), qPrintable("English in the Japanese remote window:\n" + bad.join('\n')));
  saveShot(&w, "remote-window-ja");
}

QTEST_MAIN(TestUiTranslation)
#include "tst_ui_translation.moc"
