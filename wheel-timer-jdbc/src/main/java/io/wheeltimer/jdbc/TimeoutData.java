package io.wheeltimer.jdbc;

import io.wheeltimer.jdbc.internal.table.StorableText;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What is stored with a timeout besides its deadline: its data, as text, and the context captured on
 * the scheduling thread. A {@code String} is stored as given, another object as the codec writes it
 * (without a codec, only {@code String} data is accepted); the text may be at most the maximum data
 * size, counted in UTF-8 bytes. Every check runs before anything is written.
 */
final class TimeoutData {

    private static final System.Logger log = TimerLog.LOGGER;

    private final long maxDataSize;
    private final DurableDataCodec codec;
    private final DurableTimeoutContext context;
    private final AtomicBoolean reportedLongContext = new AtomicBoolean();
    private final AtomicBoolean reportedUnstorableContext = new AtomicBoolean();

    TimeoutData(TimerSettings settings) {
        this.maxDataSize = settings.maxDataSize();
        this.codec = settings.codec();
        this.context = settings.context();
    }

    /**
     * The text to store for {@code data} of the timeout of {@code task} for {@code key}; null for none.
     *
     * @throws IllegalArgumentException if it is of a type that cannot be written, or too large
     */
    String text(String task, String key, Object data) {
        if (data == null) {
            return null;
        }
        String text;
        if (data instanceof String string) {
            text = string;
        } else if (codec == null) {
            throw new IllegalArgumentException("data of type " + data.getClass().getName() + " for task \"" + task
                    + "\" and key \"" + key + "\" cannot be stored: without a DurableDataCodec only String data is"
                    + " accepted");
        } else {
            text = codec.write(data);
            if (text == null) {
                throw new IllegalArgumentException("the DurableDataCodec wrote null for data of type "
                        + data.getClass().getName() + " (task \"" + task + "\", key \"" + key + "\")");
            }
        }
        long size = StorableText.utf8Length(text);
        if (size > maxDataSize) {
            throw new IllegalArgumentException("data of task \"" + task + "\" for key \"" + key + "\" is " + size
                    + " bytes (UTF-8); the limit is " + maxDataSize + " bytes (maxDataSize)");
        }
        if (text.indexOf('\u0000') >= 0) {
            throw new IllegalArgumentException("data of task \"" + task + "\" for key \"" + key + "\" contains"
                    + " U+0000, which not every database stores in text; escape it (JSON does)");
        }
        return text;
    }

    /**
     * On the scheduling thread: what the context captures, to store with the timeout; null when it
     * captures nothing, more than the trace_context column holds, or text that not every database
     * stores (U+0000, which PostgreSQL refuses; an unpaired surrogate, which has no UTF-8). A
     * context is an aid to tracing, never a reason to refuse a schedule: such a context is dropped,
     * and logged once for each of the two reasons.
     */
    String capture() {
        String captured = context.capture();
        if (captured == null) {
            return null;
        }
        if (captured.codePointCount(0, captured.length()) > StorableText.MAX_CONTEXT_LENGTH) {
            if (reportedLongContext.compareAndSet(false, true)) {
                log.log(
                        System.Logger.Level.WARNING,
                        () -> "The DurableTimeoutContext " + context + " captured " + captured.length()
                                + " characters, more than the " + StorableText.MAX_CONTEXT_LENGTH
                                + " stored with a timeout; such contexts are not stored (logged once)");
            }
            return null;
        }
        int unstorable = StorableText.unstorableAt(captured);
        if (unstorable >= 0) {
            if (reportedUnstorableContext.compareAndSet(false, true)) {
                log.log(
                        System.Logger.Level.WARNING,
                        () -> "The DurableTimeoutContext " + context + " captured text with U+"
                                + String.format("%04X", (int) captured.charAt(unstorable)) + " at index " + unstorable
                                + "; a context with U+0000 or an unpaired surrogate is not stored with its timeout,"
                                + " which is scheduled without it (logged once)");
            }
            return null;
        }
        return captured;
    }

    DurableTimeoutContext context() {
        return context;
    }
}
