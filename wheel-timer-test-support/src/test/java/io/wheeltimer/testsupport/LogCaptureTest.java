package io.wheeltimer.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

class LogCaptureTest {

    private static final System.Logger LOG = System.getLogger(LogCaptureTest.class.getName());

    @Test
    void capturesWhatTheClassLogsThroughSystemLoggerByJulLevel() {
        try (LogCapture log = LogCapture.of(LogCaptureTest.class)) {
            LOG.log(System.Logger.Level.WARNING, "slow {0}", "tick");
            LOG.log(System.Logger.Level.ERROR, "failed", new IllegalStateException("boom"));
            LOG.log(System.Logger.Level.DEBUG, "detail");

            assertThat(log.messages(Level.WARNING)).containsExactly("slow tick");
            assertThat(log.records(Level.SEVERE))
                    .singleElement()
                    .satisfies(r -> assertThat(r.getThrown()).hasMessage("boom"));
            assertThat(log.count(Level.FINE, "detail")).isOne();
            assertThat(log.records()).hasSize(3);
        }
    }

    @Test
    void closingPutsTheLoggerBackAsItWas() {
        Logger logger = Logger.getLogger(LogCaptureTest.class.getName());
        Level level = logger.getLevel();
        boolean useParentHandlers = logger.getUseParentHandlers();

        try (LogCapture log = LogCapture.of(LogCaptureTest.class)) {
            assertThat(logger.getUseParentHandlers()).isFalse();
        }

        assertThat(logger.getLevel()).isEqualTo(level);
        assertThat(logger.getUseParentHandlers()).isEqualTo(useParentHandlers);
        assertThat(logger.getHandlers()).noneMatch(LogCapture.class::isInstance);
    }
}
