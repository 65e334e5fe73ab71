package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.testing.LogCapture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;

class ThrottledWarningTest {

    private final AtomicLong nanos = new AtomicLong();

    @Test
    void logsTheFirstOccurrenceAndAtMostOneLinePerIntervalCountingTheRest() {
        try (LogCapture log = LogCapture.of(JdbcDurableTimer.class)) {
            ThrottledWarning warning = new ThrottledWarning(
                    System.getLogger(JdbcDurableTimer.class.getName()), TimeUnit.SECONDS.toNanos(10), nanos::get);

            // A failing poll every 100 ms for 25 s.
            for (int i = 0; i < 250; i++) {
                warning.report(() -> "could not poll", new IllegalStateException("down"));
                nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(100));
            }

            assertThat(log.messages(Level.WARNING))
                    .containsExactly(
                            "could not poll",
                            "could not poll (99 more like it since the last line; at most one line every 10 s)",
                            "could not poll (99 more like it since the last line; at most one line every 10 s)");
            assertThat(log.records(Level.WARNING))
                    .allSatisfy(r -> assertThat(r.getThrown()).hasMessage("down"));
        }
    }

    @Test
    void anOccurrenceAfterAQuietIntervalIsLoggedAtOnce() {
        try (LogCapture log = LogCapture.of(JdbcDurableTimer.class)) {
            ThrottledWarning warning = new ThrottledWarning(
                    System.getLogger(JdbcDurableTimer.class.getName()), TimeUnit.SECONDS.toNanos(10), nanos::get);

            warning.report(() -> "first outage", null);
            nanos.addAndGet(TimeUnit.MINUTES.toNanos(5));
            warning.report(() -> "second outage", null);

            assertThat(log.messages(Level.WARNING)).containsExactly("first outage", "second outage");
        }
    }
}
