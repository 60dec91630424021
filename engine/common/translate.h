#pragma once
// Marks a user-visible string that lives below the window (knob help, lesson findings) for
// translation without translating it here: the engine has no Qt. lupdate reads the macro as
// QT_TRANSLATE_NOOP (the build runs it with -tr-function-alias QT_TRANSLATE_NOOP+=LWB_TRANSLATE_NOOP),
// so `context` and `text` land in the window's .ts file; the window shows
// QCoreApplication::translate(context, text), the CLI the English text as it is.
#define LWB_TRANSLATE_NOOP(context, text) text
