package io.wheeltimer.jdbc.internal.table;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Bulk writes cut into statements: at most so many rows, and at most so many bytes counted at the
 * most a driver sends (every character escaped); a row larger than that alone in its statement.
 */
class WriteChunksTest {

    private static TimeoutWrite row(String key, String data) {
        return new TimeoutWrite("task", key, 0, null, 1, data, null);
    }

    private static List<TimeoutWrite> rows(int count, String data) {
        return IntStream.range(0, count).mapToObj(i -> row("k" + i, data)).toList();
    }

    @Test
    void aRowCountsItsTextTwiceInUtf8AndItsFixedPart() {
        assertThat(WriteChunks.maxBytes(row("k", null))).isEqualTo(WriteChunks.ROW_OVERHEAD_BYTES + 2 * (4 + 1));
        assertThat(WriteChunks.maxBytes(row("k", "'\\")))
                .as("a quote and a backslash, each escaped with a second byte")
                .isEqualTo(WriteChunks.ROW_OVERHEAD_BYTES + 2 * (4 + 1 + 2));
        assertThat(WriteChunks.maxBytes(row("k", "\u00e4\u5b9e\ud83d\ude00")))
                .as("two, three and four bytes of UTF-8")
                .isEqualTo(WriteChunks.ROW_OVERHEAD_BYTES + 2 * (4 + 1 + 9));
    }

    @Test
    void chunksHoldAtMostTheRowsAndTheBytesGiven() {
        List<TimeoutWrite> small = rows(1_001, "x");
        assertThat(WriteChunks.of(small, 500, Long.MAX_VALUE))
                .extracting(List::size)
                .containsExactly(500, 500, 1);

        List<TimeoutWrite> large = rows(10, "x".repeat(1000));
        long each = WriteChunks.maxBytes(large.get(0));
        assertThat(WriteChunks.of(large, 500, 3 * each)).extracting(List::size).containsExactly(3, 3, 3, 1);
        assertThat(WriteChunks.of(large, 500, 3 * each - 1))
                .extracting(List::size)
                .containsExactly(2, 2, 2, 2, 2);
    }

    @Test
    void aRowAboveTheBoundGoesAloneAndEveryRowIsKeptInOrder() {
        List<TimeoutWrite> writes = List.of(row("a", "x"), row("b", "y".repeat(10_000)), row("c", "z"), row("d", "z"));

        List<List<TimeoutWrite>> chunks = WriteChunks.of(writes, 500, 1_000);

        assertThat(chunks).extracting(List::size).containsExactly(1, 1, 2);
        assertThat(chunks.stream().flatMap(List::stream).toList()).isEqualTo(writes);
        assertThat(WriteChunks.of(List.of(), 500, 1_000)).isEmpty();
    }
}
