package io.wheeltimer.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.ResourceBundle;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class RepeatLogTest {

    private static final long INTERVAL = TimeUnit.SECONDS.toNanos(10);

    private final AtomicLong nanos = new AtomicLong();
    private final RecordingLogger logger = new RecordingLogger();
    private final RepeatLog log = new RepeatLog(logger, "poll failures", INTERVAL, nanos::get);

    @Test
    void logsTheFirstOccurrenceAndAtMostOneLinePerIntervalCountingTheRest() {
        // A failing poll every 100 ms for 25 s.
        for (int i = 0; i < 250; i++) {
            log.report(() -> "could not poll", new IllegalStateException("down"));
            nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(100));
        }

        assertThat(logger.messages())
                .containsExactly(
                        "could not poll",
                        "could not poll (99 more poll failures since the last line; at most one line every 10 s)",
                        "could not poll (99 more poll failures since the last line; at most one line every 10 s)");
        assertThat(logger.thrown).allSatisfy(thrown -> assertThat(thrown).hasMessage("down"));
    }

    @Test
    void anOccurrenceAfterAQuietIntervalIsLoggedAtOnce() {
        log.report(() -> "first outage", null);
        nanos.addAndGet(TimeUnit.MINUTES.toNanos(5));
        log.report(() -> "second outage", null);

        assertThat(logger.messages()).containsExactly("first outage", "second outage");
    }

    @Test
    void aRepeatBuildsNoMessage() {
        log.report(() -> "first", null);
        log.report(
                () -> {
                    throw new AssertionError("the message of a counted repeat was built");
                },
                null);

        assertThat(logger.messages()).containsExactly("first");
    }

    @Test
    void flushWritesTheCountOnceTheIntervalHasPassedAndNotBefore() {
        log.report(() -> "refused", new IllegalStateException("full"));
        log.report(() -> "refused", new IllegalStateException("full"));
        log.report(() -> "refused", new IllegalStateException("full"));
        assertThat(log.nextFlushAtNanos()).isEqualTo(INTERVAL);

        nanos.set(INTERVAL - 1);
        log.flush();
        assertThat(logger.messages()).hasSize(1);

        nanos.set(INTERVAL);
        log.flush();
        assertThat(logger.messages()).hasSize(2);
        assertThat(logger.messages().get(1)).startsWith("2 more poll failures since the last line");
        assertThat(logger.thrown.get(1)).isNull();
        assertThat(log.nextFlushAtNanos()).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aForcedFlushWritesTheCountAtOnce() {
        log.report(() -> "refused", null);
        log.report(() -> "refused", null);

        log.flush(true);

        assertThat(logger.messages()).hasSize(2);
        assertThat(logger.messages().get(1)).startsWith("1 more poll failures since the last line");
    }

    @Test
    void nothingToFlushWithoutRepeats() {
        log.flush(true);
        log.report(() -> "once", null);
        log.flush(true);

        assertThat(logger.messages()).containsExactly("once");
        assertThat(log.nextFlushAtNanos()).isEqualTo(Long.MAX_VALUE);
    }

    /** Keeps every WARN line and its exception. */
    private static final class RecordingLogger implements System.Logger {

        final List<String> lines = new CopyOnWriteArrayList<>();
        final List<Throwable> thrown = new CopyOnWriteArrayList<>();

        List<String> messages() {
            return lines;
        }

        @Override
        public String getName() {
            return "recording";
        }

        @Override
        public boolean isLoggable(Level level) {
            return true;
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String msg, Throwable error) {
            assertThat(level).isEqualTo(Level.WARNING);
            lines.add(msg);
            thrown.add(error);
        }

        @Override
        public void log(Level level, ResourceBundle bundle, String format, Object... params) {
            assertThat(params).as("RepeatLog writes whole lines, not formats").isNullOrEmpty();
            log(level, bundle, format, (Throwable) null);
        }

        @Override
        public void log(Level level, Supplier<String> msgSupplier, Throwable thrown) {
            log(level, null, msgSupplier.get(), thrown);
        }
    }
}
