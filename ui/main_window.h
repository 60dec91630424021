#pragma once
// The workbench window: dockable views around one EngineBridge, menus, a status bar, and
// persisted layout. Views never talk to the engine thread directly; they get a Frame per
// GUI tick from the bridge (see ui/bridge/engine_bridge.h).
#include <QMainWindow>
#include <QPointer>
#include <memory>

#include "ui/bridge/frame.h"
#include "ui/bridge/throttle.h"
#include "ui/serve_controller.h"

class QLabel;
class QProgressBar;
class QDockWidget;
class QActionGroup;
class QMenu;

namespace lwb::ui {

class EngineBridge;
class ModelLoader;
class ChatPanel;
class LoadPanel;
class KnobsPanel;
class BatchChart;
class KvPanel;
class PrefixCacheChart;
class LatencyPanel;
class RequestsPanel;
class RunsPanel;
class SpecDecodePanel;
class LessonsPanel;
class CapacityPanel;
class PdPanel;
class PdCompare;

struct WindowOptions {
  QString modelDir;          // empty: the default model
  EngineConfig knobs;        // the first engine's (the command line's knob flags)
  bool demo = false;         // run the first lesson, then a shared-prefix load and a short chat
  double measureSeconds = 0; // > 0: print GUI-side throughput to stderr after this long, then quit
  bool restoreLayout = true; // tests start from the default layout
  // Engine ▸ Serve API… serves through it (app/api_serve_controller.h); none: no such entry.
  std::shared_ptr<ServeController> serveController;
  // --pd P:D: the first engine is a prefill/decode pair (CPU: threads of each; sim: instances).
  int pdPrefill = 0, pdDecode = 0;
};

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(const WindowOptions& options, QWidget* parent = nullptr);
  ~MainWindow() override;

  // A real engine on a model folder or GGUF file (the knobs in force, any backend but sim).
  void openModel(const QString& dir);
  // A simulated engine (backend sim) on a model's config.json with `config`'s hardware
  // and tensor parallelism; its virtual clock runs at `speed` (0 = as fast as possible).
  void openSimulation(const QString& modelPath, const EngineConfig& config, double speed);
  // File ▸ Simulate…: the dialog, then openSimulation.
  void showSimulateDialog();
  bool simulated() const;  // the engine attached is simulated
  EngineBridge* bridge() const { return bridge_; }
  ChatPanel* chat() const { return chat_; }
  LoadPanel* load() const { return load_; }
  KnobsPanel* knobs() const { return knobs_; }
  BatchChart* batch() const { return batch_; }
  KvPanel* kv() const { return kv_; }
  PrefixCacheChart* prefix() const { return prefix_; }
  LatencyPanel* latency() const { return latency_; }
  RequestsPanel* requests() const { return requests_; }
  RunsPanel* runs() const { return runs_; }
  SpecDecodePanel* specDecode() const { return spec_; }
  LessonsPanel* lessons() const { return lessons_; }
  // Aborts every request and clears the history and the charts (Engine ▸ Reset).
  void resetHistory();
  CapacityPanel* capacity() const { return capacity_; }
  PdPanel* pd() const { return pd_; }
  // Engine ▸ Prefill/decode disaggregation…: the model in use again as a prefill/decode
  // pair (CPU: one instance each, P and D threads; sim: P prefill and D decode instances
  // of the simulated GPU, each at most kMaxSimPdInstances); 0, 0: colocated. False, with
  // lastError(), when the split is refused.
  bool startPd(int prefill, int decode);
  // Per side: what the P/D dock's instance selectors offer (bench --pd runs more).
  static constexpr int kMaxSimPdInstances = 8;
  // Why the window refuses P:D on `backend` (empty: it accepts it); 0:0 is colocated.
  static QString pdSplitError(int prefill, int decode, const std::string& backend);
  bool disaggregated() const;  // the engine attached is a prefill/decode pair
  // The P/D view's button: the load generator's workload on the pair and on the colocated
  // design, both landing in Runs: compare. False when none can start now.
  bool compareWithColocated();
  QList<QDockWidget*> docks() const { return docks_; }
  QString lastError() const { return lastError_; }
  void resetLayout();
  // saveState()/restoreState() version: bumped whenever the default layout changes, so a
  // layout persisted by an older version is ignored (restoreState fails) and the new
  // default applies. 1: the first layout; 2: tabbed docks, 2 × 2 chart grid; 3: the
  // speculative-decoding dock, tabbed with the prefix cache; 4: the Capacity dock, tabbed
  // with the batch composition; 5: the Lessons dock, tabbed with the runs; 6: the P/D
  // dock, tabbed with the batch composition.
  static constexpr int kStateVersion = 6;

 protected:
  void closeEvent(QCloseEvent* e) override;
  void showEvent(QShowEvent* e) override;

 private:
  QDockWidget* addDock(QWidget* w, const QString& title, const QString& objectName, Qt::DockWidgetArea area);
  void buildDocks();
  void buildMenus();
  void buildStatusBar();
  void defaultLayout();
  void sizeDocks();
  void onFrame(const Frame& frame);
  void onEngineAttached();
  void updateStatus(const EngineSnapshot& s);
  void startDemo();
  void startDemoLoad();
  void startMeasurement();
  void exportMetrics();
  void exportPng(QWidget* w, const QString& name);
  void saveRun();
  void openRun();
  void showError(const QString& title, const QString& text);
  void fillRecentMenu();
  void openRecent(const QString& path);  // a path gone since is dropped from the list

  WindowOptions options_;
  EngineBridge* bridge_;
  ModelLoader* loader_;
  ChatPanel* chat_;
  LoadPanel* load_;
  KnobsPanel* knobs_;
  BatchChart* batch_;
  KvPanel* kv_;
  PrefixCacheChart* prefix_;
  LatencyPanel* latency_;
  RequestsPanel* requests_;
  RunsPanel* runs_;
  SpecDecodePanel* spec_;
  LessonsPanel* lessons_;
  CapacityPanel* capacity_;
  PdPanel* pd_;
  PdCompare* pdCompare_;
  int pdSplit_[2] = {0, 0};  // the next engine's --pd (0: colocated)
  QList<QDockWidget*> docks_;
  QByteArray defaultState_;
  QLabel *modelLabel_, *deviceLabel_, *speedLabel_, *kvLabel_, *queueLabel_;
  QProgressBar* loadProgress_;
  QAction* pauseAction_ = nullptr;
  QMenu* recentMenu_ = nullptr;  // File ▸ Open recent
  QActionGroup* backendGroup_ = nullptr;
  QActionGroup* speedGroup_ = nullptr;  // Engine ▸ Simulation speed
  QMenu* speedMenu_ = nullptr;
  double simSpeed_ = 1;                 // for the next simulated engine attached
  bool shownSimulated_ = false;         // the SIMULATED marks are up
  void loadEngine(const QString& dir, const EngineConfig& config);
  void showSimulated();                 // the SIMULATED marks, chat and speed menu for the engine attached
  void setUpPd();
  void showPdDialog();
  void onPdAttached();                  // the P/D view and dock follow the engine attached
  QString lastError_;
  bool needSizing_ = true;
  // Tokens/s over about one second of engine time.
  double speedT0_ = -1;
  int64_t speedTokens0_ = 0;
  // The status bar's text follows the newest snapshot at ~4 Hz.
  std::shared_ptr<const EngineSnapshot> statusSnapshot_;
  Throttle statusRefresh_{250, [this] {
    if (statusSnapshot_) updateStatus(*statusSnapshot_);
  }};
  // --measure-seconds
  double measureStart_ = -1;
  int64_t measureTokens0_ = 0;
};

}  // namespace lwb::ui
