// Engine ▸ Serve API… in the window, through app/'s ServeController (the window gets it
// from cmd_gui): serving starts on the engine the views show, the status bar gives the
// address, an API request appears in the requests table tagged "api", a new model keeps
// serving on the new engine, and serving stops on request. A controller that cannot
// start leaves the switch off with the reason.
#include <QLabel>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QtTest>

#include <httplib.h>
#include <nlohmann/json.hpp>
#include <thread>

#include "app/api_serve_controller.h"
#include "common/random_model.h"
#include "engine/common/json.h"
#include "engine/model/model.h"
#include "ui/bridge/engine_bridge.h"
#include "ui/main_window.h"
#include "ui/models/requests_table_model.h"
#include "ui/panels/requests_panel.h"
#include "ui/panels/serve_dialog.h"

using namespace lwb;
using namespace lwb::ui;

namespace {
constexpr int kTimeoutMs = 60000;

int portOf(const QString& address) { return address.section(':', -1).toInt(); }

// A port that is always taken.
struct RefusingController : ServeController {
  std::string start(std::shared_ptr<EngineLoop>, const std::string& host, int port, const ServeOptions&) override {
    return host + ":" + std::to_string(port) + ": address already in use";
  }
  void stop() override {}
  bool isRunning() const override { return false; }
  std::string address() const override { return {}; }
};
}  // namespace

class TestUiServe : public QObject {
  Q_OBJECT
  QTemporaryDir tmp_;
  std::unique_ptr<MainWindow> window_;

  ServeSwitch* controller() const { return window_->findChild<ServeSwitch*>("serveSwitch"); }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("llm-workbench-test");
    WindowOptions options;
    options.modelDir = QString::fromStdString(writeRandomLlamaModel(tmp_.filePath("a").toStdString()));
    options.knobs.executor.backend = "cpu";
    options.knobs.executor.numThreads = 1;
    options.restoreLayout = false;
    options.serveController = std::make_shared<app::ApiServeController>();
    window_ = std::make_unique<MainWindow>(options);
    window_->show();
    QTRY_VERIFY_WITH_TIMEOUT(window_->bridge()->attached(), kTimeoutMs);
  }
  void cleanupTestCase() { window_.reset(); }

  void servesAndTagsApiRequests() {
    ServeSwitch* serve = controller();
    QVERIFY(serve);
    QVERIFY(!serve->statusLabel()->isVisible());
    ServeSettings s;
    s.enabled = true;
    s.port = 0;
    QCOMPARE(serve->apply(s), QString());
    QVERIFY(serve->statusLabel()->isVisible());
    QVERIFY(serve->statusLabel()->text().contains(serve->address()));
    const int port = portOf(serve->address());
    QVERIFY(port > 0);

    nlohmann::json reply;
    std::thread client([&] {  // the GUI thread keeps polling the bridge meanwhile
      httplib::Client c("127.0.0.1", port);
      c.set_read_timeout(60, 0);
      auto r = c.Post("/v1/completions", R"({"prompt": [1, 5, 9], "max_tokens": 4, "ignore_eos": true})",
                      "application/json");
      if (r && r->status == 200) reply = lwb::parseJsonOrDiscarded(r->body);
    });
    QTRY_VERIFY_WITH_TIMEOUT(!reply.is_null(), kTimeoutMs);
    client.join();
    QCOMPARE(reply["usage"]["completion_tokens"].get<int>(), 4);
    RequestsTableModel* table = window_->requests()->model();
    QTRY_VERIFY_WITH_TIMEOUT([&] {
      for (int row = 0; row < table->rowCount(); ++row)
        if (table->data(table->index(row, RequestsTableModel::Tag), Qt::DisplayRole).toString() == "api") return true;
      return false;
    }(), kTimeoutMs);
  }

  void newModelKeepsServing() {
    const QString before = controller()->address();
    window_->openModel(QString::fromStdString(writeRandomLlamaModel(tmp_.filePath("b").toStdString())));
    QTRY_VERIFY_WITH_TIMEOUT(window_->bridge()->model() && window_->bridge()->model()->dir.find("/b") != std::string::npos,
                             kTimeoutMs);
    QTRY_VERIFY_WITH_TIMEOUT(!controller()->address().isEmpty(), kTimeoutMs);
    httplib::Client c("127.0.0.1", portOf(controller()->address()));
    auto r = c.Get("/v1/models");
    QVERIFY(r && r->status == 200);
    QVERIFY2(r->body.find("\"b\"") != std::string::npos, r->body.c_str());
    Q_UNUSED(before);
  }

  void stopsServing() {
    const int port = portOf(controller()->address());
    QCOMPARE(controller()->apply(ServeSettings{}), QString());
    QVERIFY(!controller()->statusLabel()->isVisible());
    QVERIFY(controller()->address().isEmpty());
    httplib::Client c("127.0.0.1", port);
    c.set_connection_timeout(2, 0);
    QVERIFY(!c.Get("/health"));
  }

  void failedStartLeavesTheSwitchOff() {
    ServeSwitch serve(window_->bridge(), std::make_shared<RefusingController>(), nullptr);
    const std::unique_ptr<QLabel> label(serve.statusLabel());  // in no status bar: the test owns it
    ServeSettings s;
    s.enabled = true;
    QCOMPARE(serve.apply(s), QString("127.0.0.1:8000: address already in use"));
    QVERIFY(serve.statusLabel()->isHidden());
    QVERIFY(serve.address().isEmpty());
  }
};

QTEST_MAIN(TestUiServe)
#include "tst_ui_serve.moc"
