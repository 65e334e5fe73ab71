package io.wheeltimer.jdbc.internal.table;

import java.util.ArrayList;
import java.util.List;

/**
 * Rows to write cut into statements that a server takes: at most so many rows, and at most so many
 * bytes of values, counted at the most a driver can send for them (see {@link #maxBytes}). A row
 * larger than the bound on its own goes in a statement of its own.
 */
final class WriteChunks {

    /**
     * The most bytes the fixed-width values and the SQL text of one row take in a statement: three
     * numbers of at most 20 digits, the quotes and separators of the eight values, and the row's
     * {@code (?, ?, ?, ?, ?, ?, 0, NULL, NULL, ?, ?)} (or the {@code NULL} a driver writes for a null).
     */
    static final int ROW_OVERHEAD_BYTES = 128;

    private WriteChunks() {}

    /**
     * {@code writes} in order, cut into chunks of at most {@code maxRows} rows whose {@link #maxBytes}
     * sum to at most {@code maxBytesPerChunk}; a row above that alone makes a chunk.
     */
    static List<List<TimeoutWrite>> of(List<TimeoutWrite> writes, int maxRows, long maxBytesPerChunk) {
        List<List<TimeoutWrite>> chunks = new ArrayList<>();
        int from = 0;
        long bytes = 0;
        for (int i = 0; i < writes.size(); i++) {
            long row = maxBytes(writes.get(i));
            if (i > from && (i - from == maxRows || bytes + row > maxBytesPerChunk)) {
                chunks.add(writes.subList(from, i));
                from = i;
                bytes = 0;
            }
            bytes += row;
        }
        if (from < writes.size()) {
            chunks.add(writes.subList(from, writes.size()));
        }
        return chunks;
    }

    /**
     * The most bytes {@code write} takes in a statement: its text in UTF-8, twice over (a driver that
     * sends values as literals escapes each quote and backslash with a second byte; a character of two
     * or more bytes is never escaped), and {@link #ROW_OVERHEAD_BYTES}.
     */
    static long maxBytes(TimeoutWrite write) {
        return ROW_OVERHEAD_BYTES
                + 2
                        * (utf8(write.task())
                                + utf8(write.key())
                                + utf8(write.holder())
                                + utf8(write.data())
                                + utf8(write.traceContext()));
    }

    private static long utf8(String text) {
        return text == null ? 0 : StorableText.utf8Length(text);
    }
}
