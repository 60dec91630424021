#pragma once
// One colour per concept, used the same way in every view: prefill is always amber,
// decode always blue, the token budget always red, and so on. A dark neutral palette
// keeps the accents readable on dense plots.
#include <QColor>
#include <QString>
#include <cstdint>

class QApplication;

namespace lwb::ui::theme {

// Neutral surfaces and text.
inline const QColor kWindow{0x1f, 0x23, 0x2a};
inline const QColor kBase{0x17, 0x1a, 0x1f};      // plot and editor background
inline const QColor kPanel{0x2a, 0x2f, 0x38};
inline const QColor kText{0xd8, 0xdc, 0xe3};
inline const QColor kMutedText{0x8b, 0x93, 0xa1};
inline const QColor kGrid{0x33, 0x39, 0x43};
inline const QColor kAxis{0x5a, 0x62, 0x70};

// Concepts.
inline const QColor kPrefill{0xf0, 0xa0, 0x4b};    // prompt tokens computed (sets TTFT)
inline const QColor kDecode{0x4f, 0xb3, 0xd9};     // one token per running request (sets ITL)
inline const QColor kVerify{0x9b, 0x7f, 0xd4};     // speculative draft tokens the target verifies
inline const QColor kQueue{0x6b, 0x72, 0x80};      // waiting for admission
inline const QColor kTransfer{0x7d, 0xd3, 0x8a};   // P/D: KV blocks on the link from prefill to decode
inline const QColor kBudget{0xe0, 0x6c, 0x75};     // max_num_batched_tokens
inline const QColor kRunning{0x98, 0xc3, 0x79};
inline const QColor kWaiting{0xc6, 0x78, 0xdd};
inline const QColor kCached{0x98, 0xc3, 0x79};     // prefix-cache hits
inline const QColor kDuration{0xab, 0xb2, 0xbf};   // step duration
inline const QColor kMarker{0xe5, 0xc0, 0x7b};     // knob changes
inline const QColor kPreempt{0xff, 0x55, 0x55};
inline const QColor kAccent{0x61, 0xaf, 0xef};     // selection, focus
inline const QColor kRunA{0x61, 0xaf, 0xef};       // run comparison: A
inline const QColor kRunB{0xf0, 0xa0, 0x4b};       // run comparison: B

// A stable, well-spread colour for a request id (golden-ratio hue walk), never too dark.
QColor requestColor(int64_t id);
// A stable colour for a token id in the token-chip view.
QColor tokenColor(int id);

// Fusion style + the dark palette + a small style sheet for docks and group boxes.
void apply(QApplication& app);

QString htmlColor(const QColor& c);

}  // namespace lwb::ui::theme
