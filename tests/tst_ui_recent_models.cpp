// File ▸ Open recent: the list (RecentModels, in QSettings) keeps the newest first, each
// path once, at most kMaxEntries; the window adds a model once it has loaded — a GGUF
// file as well as a folder — and reopens it from the menu; an entry whose file has gone
// is dropped with an error naming it.
#include <QMenu>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "common/gguf_export.h"
#include "common/random_model.h"
#include "engine/model/model.h"
#include "ui/bridge/engine_bridge.h"
#include "ui/main_window.h"
#include "ui/models/recent_models.h"

using namespace lwb;
using namespace lwb::ui;

namespace {
constexpr int kTimeoutMs = 60000;

QString loadedPath(const MainWindow& w) {
  const Model* m = w.bridge()->attached() ? w.bridge()->model() : nullptr;
  return m ? QString::fromStdString(m->dir) : QString();
}

// The paths of the menu's model entries, in menu order (it is refilled when shown).
QStringList menuPaths(MainWindow& w) {
  auto* menu = w.findChild<QMenu*>("menu.recent");
  if (!menu) return {QStringLiteral("no menu.recent")};
  emit menu->aboutToShow();
  QStringList out;
  for (QAction* a : menu->actions())
    if (a->data().isValid()) out << a->data().toString();
  return out;
}

QAction* menuEntry(MainWindow& w, const QString& path) {
  auto* menu = w.findChild<QMenu*>("menu.recent");
  for (QAction* a : menu->actions())
    if (a->data().toString() == path) return a;
  return nullptr;
}
}  // namespace

class TestUiRecentModels : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);  // settings stay out of $HOME
    QCoreApplication::setOrganizationName("llm-workbench-test-recent");
  }
  void init() { RecentModels::clear(); }

  void listKeepsNewestFirstOnceEachCapped() {
    RecentModels::add("/models/a");
    RecentModels::add("/models/b.gguf");
    RecentModels::add("/models/x/../a/");  // the same folder, spelled differently
    QCOMPARE(RecentModels::paths(), QStringList({"/models/a", "/models/b.gguf"}));
    for (int i = 0; i < RecentModels::kMaxEntries + 5; ++i) RecentModels::add(QString("/m/%1.gguf").arg(i));
    const QStringList list = RecentModels::paths();
    QCOMPARE(list.size(), RecentModels::kMaxEntries);
    QCOMPARE(list.front(), QString("/m/%1.gguf").arg(RecentModels::kMaxEntries + 4));
    RecentModels::remove(list.front());
    QCOMPARE(RecentModels::paths().front(), QString("/m/%1.gguf").arg(RecentModels::kMaxEntries + 3));
    QCOMPARE(QSettings().value("models/recent").toStringList(), RecentModels::paths());  // persisted
    RecentModels::clear();
    QVERIFY(RecentModels::paths().isEmpty());
  }

  void ggufFileAppearsAndReopens() {
    QTemporaryDir tmp;
    RandomModelSpec spec;
    spec.numHiddenLayers = 1;
    const QString folder = QString::fromStdString(writeRandomLlamaModel(tmp.filePath("m").toStdString(), spec));
    const QString gguf = QString::fromStdString(
        test::writeGgufFromFolder(folder.toStdString(), tmp.filePath("m.gguf").toStdString()));
    WindowOptions options;
    options.modelDir = gguf;
    options.knobs.executor.backend = "cpu";
    options.knobs.executor.numThreads = 1;
    options.restoreLayout = false;
    MainWindow w(options);
    QTRY_COMPARE_WITH_TIMEOUT(loadedPath(w), gguf, kTimeoutMs);
    QCOMPARE(RecentModels::paths(), QStringList({gguf}));
    QCOMPARE(menuPaths(w), QStringList({gguf}));

    w.openModel(folder);
    QTRY_COMPARE_WITH_TIMEOUT(loadedPath(w), folder, kTimeoutMs);
    QCOMPARE(menuPaths(w), QStringList({folder, gguf}));

    QAction* entry = menuEntry(w, gguf);
    QVERIFY(entry != nullptr);
    QVERIFY(entry->text().contains("m.gguf"));
    entry->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(loadedPath(w), gguf, kTimeoutMs);
    QCOMPARE(menuPaths(w), QStringList({gguf, folder}));
    QVERIFY(w.lastError().isEmpty());

    // A file that failed to load never enters the list.
    const QString broken = tmp.filePath("broken.gguf");
    QFile f(broken);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("GGUF but not much else");
    f.close();
    w.openModel(broken);
    QTRY_VERIFY_WITH_TIMEOUT(w.lastError().contains("broken.gguf"), kTimeoutMs);
    QCOMPARE(RecentModels::paths(), QStringList({gguf, folder}));

    // One removed since is dropped when picked, with an error naming it.
    QVERIFY(QFile::remove(gguf));
    menuPaths(w);
    menuEntry(w, gguf)->trigger();
    QVERIFY2(w.lastError().contains(gguf), qPrintable(w.lastError()));
    QCOMPARE(RecentModels::paths(), QStringList({folder}));
    QCOMPARE(loadedPath(w), gguf);  // the running model is untouched
  }
};

QTEST_MAIN(TestUiRecentModels)
#include "tst_ui_recent_models.moc"
