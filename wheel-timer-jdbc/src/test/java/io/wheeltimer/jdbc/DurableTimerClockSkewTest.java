package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.wheeltimer.testsupport.LogCapture;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;

/**
 * Deadlines and leases are judged by the database's clock: instances whose clocks are ten minutes
 * ahead and behind fire every timeout once, within a second of its real deadline, on the instance
 * that scheduled it; the skew is logged. With {@link TimeSource#INSTANCE} the builder's clock judges.
 */
class DurableTimerClockSkewTest extends OnEachDatabase {

    private static final String TASK = "order-payment";
    private static final Duration TEN_MINUTES = Duration.ofMinutes(10);

    DurableTimerClockSkewTest(TestDatabase database) {
        super(database);
    }

    @Test
    void instancesTenMinutesAheadAndBehindFireEveryTimeoutOnceOnTimeWhereItWasScheduled() {
        Map<String, Instant> realDeadlines = new ConcurrentHashMap<>();
        try (LogCapture log = LogCapture.of(JdbcDurableTimer.class)) {
            RecordingHandler onAhead = fixture.writingHandler("ahead");
            RecordingHandler onBehind = fixture.writingHandler("behind");
            JdbcDurableTimer ahead = fixture.start(fixture.builder()
                    .instanceId("ahead")
                    .clock(Clock.offset(Clock.systemUTC(), TEN_MINUTES))
                    .lease(Duration.ofSeconds(2))
                    .handler(TASK, onAhead));
            JdbcDurableTimer behind = fixture.start(fixture.builder()
                    .instanceId("behind")
                    .clock(Clock.offset(Clock.systemUTC(), TEN_MINUTES.negated()))
                    .lease(Duration.ofSeconds(2))
                    .handler(TASK, onBehind));
            assertThat(ahead.databaseClockOffset())
                    .hasValueSatisfying(
                            offset -> assertThat(offset.plus(TEN_MINUTES).abs()).isLessThan(Duration.ofSeconds(1)));
            assertThat(behind.databaseClockOffset())
                    .hasValueSatisfying(offset ->
                            assertThat(offset.minus(TEN_MINUTES).abs()).isLessThan(Duration.ofSeconds(1)));

            List<String> keys = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                JdbcDurableTimer on = i % 2 == 0 ? ahead : behind;
                String key = (i % 2 == 0 ? "ahead-" : "behind-") + i;
                Duration delay = Duration.ofMillis(1000 + 150L * i);
                realDeadlines.put(key, Instant.now().plus(delay));
                on.schedule(TASK, key, delay);
                keys.add(key);
            }

            await().atMost(Duration.ofSeconds(20)).until(() -> onAhead.count() + onBehind.count() == 10);
            for (String key : keys) {
                fixture.awaitCommittedWrite(key);
            }
            assertThat(fixture.writesPerKey().values()).containsOnly(1L);
            List<RecordingHandler.Run> runs = new ArrayList<>(onAhead.runs());
            runs.addAll(onBehind.runs());
            Duration worst = Duration.ZERO;
            for (RecordingHandler.Run run : runs) {
                Duration late = Duration.between(realDeadlines.get(run.timeout().key()), run.started());
                assertThat(late.abs()).as("lateness of %s", run.timeout().key()).isLessThan(Duration.ofSeconds(1));
                worst = late.abs().compareTo(worst) > 0 ? late.abs() : worst;
            }
            assertThat(onAhead.runs()).allMatch(r -> r.timeout().key().startsWith("ahead-"));
            assertThat(onBehind.runs()).allMatch(r -> r.timeout().key().startsWith("behind-"));
            System.out.println(
                    "SKEW (" + database + "): 10 timeouts on instances 10 min ahead and behind, worst |lateness| "
                            + worst.toMillis() + " ms");
            assertThat(log.messages(Level.WARNING))
                    .anyMatch(m -> m.contains("Durable timer ahead: this instance's clock is")
                            && m.contains("ahead of the database's"))
                    .anyMatch(m -> m.contains("Durable timer behind: this instance's clock is")
                            && m.contains("behind the database's"));
        }
    }

    @Test
    void withTheInstancesTimeSourceItsOwnClockJudges() {
        Clock aheadClock = Clock.offset(Clock.systemUTC(), TEN_MINUTES);
        JdbcDurableTimer byInstance = fixture.start(fixture.builder()
                .instanceId("own-clock")
                .clock(aheadClock)
                .timeSource(TimeSource.INSTANCE)
                .handler(TASK, t -> {}));
        JdbcDurableTimer byDatabase = fixture.start(
                fixture.builder().instanceId("database-clock").clock(aheadClock).handler(TASK, t -> {}));

        Instant own = byInstance.schedule(TASK, "own", Duration.ofHours(1)).deadline();
        Instant judged =
                byDatabase.schedule(TASK, "judged", Duration.ofHours(1)).deadline();

        Instant real = Instant.now().plus(Duration.ofHours(1));
        assertThat(Duration.between(real, own).minus(TEN_MINUTES).abs()).isLessThan(Duration.ofSeconds(1));
        assertThat(Duration.between(real, judged).abs()).isLessThan(Duration.ofSeconds(1));
        assertThat(byInstance.databaseClockOffset()).isEmpty();
    }
}
