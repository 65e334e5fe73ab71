package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.wheeltimer.testsupport.LogCapture;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;

/**
 * The context captured at {@code schedule} travels with the row: each run gets it, on whichever
 * instance runs it, after a restart too; text too long to store, or that a database cannot store
 * (U+0000, an unpaired surrogate), is not stored, and never fails the schedule.
 */
class DurableTimerContextTest extends OnEachDatabase {

    private static final String TASK = "order-payment";

    /** What a tracer would keep: the current trace of the thread. */
    private static final ThreadLocal<String> CURRENT = new ThreadLocal<>();

    record Run(String stored, DurableTimeout timeout, String currentDuringHandler) {}

    /** Captures the thread's current trace; each run makes the stored one current around its handler. */
    static final class FakeContext implements DurableTimeoutContext {
        final Queue<Run> runs;

        FakeContext(Queue<Run> runs) {
            this.runs = runs;
        }

        @Override
        public String capture() {
            return CURRENT.get();
        }

        @Override
        public void run(String stored, DurableTimeout timeout, Callable<Void> handler) throws Exception {
            CURRENT.set(stored);
            try {
                handler.call();
            } finally {
                CURRENT.remove();
            }
        }
    }

    DurableTimerContextTest(TestDatabase database) {
        super(database);
    }

    @Test
    void theCapturedContextReachesTheRunAfterARestart() {
        Queue<Run> runs = new ConcurrentLinkedQueue<>();
        JdbcDurableTimer first = fixture.start(fixture.builder()
                .instanceId("first")
                .context(new FakeContext(runs))
                .handler(TASK, t -> runs.add(new Run(null, t, CURRENT.get()))));
        String traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        CURRENT.set(traceparent);
        try {
            first.schedule(TASK, "order-1", Instant.now().plusSeconds(2), "data");
            first.scheduleAll(
                    List.of(new DurableTimeout(TASK, "order-2", Instant.now().plusSeconds(2))));
        } finally {
            CURRENT.remove();
        }
        first.stop();

        fixture.start(fixture.builder()
                .instanceId("second")
                .context(new FakeContext(runs))
                .handler(TASK, t -> runs.add(new Run(null, t, CURRENT.get()))));

        await().atMost(Duration.ofSeconds(15)).until(() -> runs.size() == 2);
        assertThat(runs)
                .allSatisfy(run -> assertThat(run.currentDuringHandler()).isEqualTo(traceparent));
        await().atMost(Duration.ofSeconds(10)).until(() -> fixture.rows() == 0);
    }

    @Test
    void aContextTooLongToStoreIsNotStored() {
        Queue<Run> runs = new ConcurrentLinkedQueue<>();
        JdbcDurableTimer durable = fixture.start(fixture.builder()
                .context(new FakeContext(runs))
                .handler(TASK, t -> runs.add(new Run(null, t, CURRENT.get()))));
        CURRENT.set("x".repeat(513));
        try {
            durable.schedule(TASK, "long", Duration.ofMillis(200));
        } finally {
            CURRENT.remove();
        }
        CURRENT.set("y".repeat(512));
        try {
            durable.schedule(TASK, "at-limit", Duration.ofMillis(200));
        } finally {
            CURRENT.remove();
        }

        await().atMost(Duration.ofSeconds(10)).until(() -> runs.size() == 2);
        assertThat(runs)
                .filteredOn(run -> run.timeout().key().equals("long"))
                .singleElement()
                .extracting(Run::currentDuringHandler)
                .isNull();
        assertThat(runs)
                .filteredOn(run -> run.timeout().key().equals("at-limit"))
                .singleElement()
                .extracting(Run::currentDuringHandler)
                .isEqualTo("y".repeat(512));
    }

    @Test
    void aContextWithTextNoDatabaseStoresIsDroppedAndTheScheduleStands() {
        Queue<Run> runs = new ConcurrentLinkedQueue<>();
        try (LogCapture log = LogCapture.of(JdbcDurableTimer.class)) {
            JdbcDurableTimer durable = fixture.start(fixture.builder()
                    .context(new FakeContext(runs))
                    .handler(TASK, t -> runs.add(new Run(null, t, CURRENT.get()))));
            scheduleWithin("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\u0000", durable, "nul");
            scheduleWithin("00-\ud800-00f067aa0ba902b7-01", durable, "lone-high-surrogate");
            scheduleWithin("\udc00", durable, "lone-low-surrogate");
            durable.scheduleAll(List.of()); // nothing to write, nothing captured
            CURRENT.set("\u0000");
            try {
                durable.scheduleAll(
                        List.of(new DurableTimeout(TASK, "bulk", Instant.now().plusMillis(200))));
            } finally {
                CURRENT.remove();
            }
            String pair = "00-\ud83d\ude00-01"; // a surrogate pair is text like any other
            scheduleWithin(pair, durable, "pair");

            await().atMost(Duration.ofSeconds(10)).until(() -> runs.size() == 5);
            assertThat(runs)
                    .filteredOn(run -> !run.timeout().key().equals("pair"))
                    .extracting(Run::currentDuringHandler)
                    .containsOnlyNulls();
            assertThat(runs)
                    .filteredOn(run -> run.timeout().key().equals("pair"))
                    .singleElement()
                    .extracting(Run::currentDuringHandler)
                    .isEqualTo(pair);
            assertThat(log.messages(Level.WARNING))
                    .as("logged once")
                    .filteredOn(m -> m.contains("U+0000 or an unpaired surrogate"))
                    .singleElement()
                    .asString()
                    .contains(FakeContext.class.getSimpleName(), "not stored");
        }
    }

    private static void scheduleWithin(String trace, JdbcDurableTimer durable, String key) {
        CURRENT.set(trace);
        try {
            durable.schedule(TASK, key, Duration.ofMillis(200));
        } finally {
            CURRENT.remove();
        }
    }
}
