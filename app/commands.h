#pragma once
// Sub-commands of the llm-workbench executable. Each parses its own arguments (the last
// of a repeated flag wins), prints `--help`, and returns the process exit code; bad
// arguments give a one-line error on stderr and exit code 2.

namespace lwb::app {

int runGenerate(int argc, char** argv);  // app/cmd_generate.cpp
int runBench(int argc, char** argv);     // app/cmd_bench.cpp
int runServe(int argc, char** argv);     // app/cmd_serve.cpp (OpenAI-compatible HTTP API)
int runProxy(int argc, char** argv);     // app/cmd_proxy.cpp (P/D: prefill then decode instance)
int runTokenize(int argc, char** argv);  // app/cmd_tokenize.cpp
int runGui(int argc, char** argv);       // app/cmd_gui.cpp (window; --demo, --model DIR)
int runSimulateStep(int argc, char** argv);  // app/cmd_simulate_step.cpp (the simulator's cost model)
int runCalibrate(int argc, char** argv);     // app/cmd_calibrate.cpp (a profile for the simulator)
int runLesson(int argc, char** argv);        // app/cmd_lesson.cpp (the guided experiments, headless)

}  // namespace lwb::app
