package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A poll whose claim took all its limit allowed is followed at once by another, as soon as half a
 * batch of room is free: deadlines coming near faster than a batch per poll interval, and a burst due
 * at once, are claimed as fast as the instance starts them. With a batch of 10 every 500 ms, 300
 * timeouts would take 15 s.
 */
@ParameterizedClass
@MethodSource("io.wheeltimer.jdbc.TestDatabase#tested")
class DurableTimerCatchUpTest {

    private static final String TASK = "order-payment";
    private static final int BATCH = 10;
    private static final int TIMEOUTS = 300;

    private final TestDatabase database;
    private DurableFixture fixture;
    private ExecutorService handlers;

    DurableTimerCatchUpTest(TestDatabase database) {
        this.database = database;
    }

    @BeforeEach
    void createFixture() {
        fixture = new DurableFixture(database);
        handlers = Executors.newFixedThreadPool(2);
    }

    @AfterEach
    void stop() {
        fixture.close();
        handlers.shutdownNow();
    }

    private JdbcDurableTimer start(RecordingHandler handler) {
        return fixture.start(fixture.builder()
                .pollInterval(Duration.ofMillis(500))
                .lookahead(Duration.ofSeconds(2))
                .lease(Duration.ofSeconds(2))
                .batchSize(BATCH)
                .executor(handlers)
                .handler(TASK, handler));
    }

    @Test
    void deadlinesComingNearFasterThanABatchAPollAreClaimedBeforeTheyAreDue() {
        RecordingHandler handler = new RecordingHandler();
        JdbcDurableTimer durable = start(handler);
        Instant first = Instant.now().plusSeconds(6);

        // 200 a second come within the lookahead, against 20 a second for one batch per poll.
        for (int i = 0; i < TIMEOUTS; i++) {
            durable.schedule(TASK, "k" + i, first.plusMillis(5L * i));
        }
        assertThat(durable.held()).as("all beyond the lookahead: unheld").isZero();

        await().atMost(Duration.ofSeconds(30)).until(() -> handler.count() == TIMEOUTS);
        Duration latest = handler.runs().stream()
                .map(run -> Duration.between(run.timeout().deadline(), run.started()))
                .max(Duration::compareTo)
                .orElseThrow();
        assertThat(latest).isLessThan(Duration.ofSeconds(2));
        // Not before its deadline, by the database's clock that judges it: read here on this JVM's
        // clock, through the offset measured at each poll, whose error is a fraction of a round trip.
        assertThat(handler.runs())
                .allSatisfy(run -> assertThat(run.started())
                        .isAfterOrEqualTo(run.timeout().deadline().minus(CLOCK_OFFSET_ERROR)));
    }

    /** More than the error of the database clock's offset as one local round trip measures it. */
    private static final Duration CLOCK_OFFSET_ERROR = Duration.ofMillis(20);

    @Test
    void aBurstDueAtOnceStartsAsFastAsTheInstanceRunsItNotABatchAPoll() {
        RecordingHandler handler = new RecordingHandler();
        JdbcDurableTimer durable = start(handler);
        Instant deadline = Instant.now().plusSeconds(3);

        for (int i = 0; i < TIMEOUTS; i++) {
            durable.schedule(TASK, "k" + i, deadline);
        }

        await().atMost(Duration.ofSeconds(30)).until(() -> handler.count() == TIMEOUTS);
        Instant last = handler.runs().stream()
                .map(RecordingHandler.Run::started)
                .max(Instant::compareTo)
                .orElseThrow();
        assertThat(Duration.between(deadline, last)).isLessThan(Duration.ofSeconds(5));
        await().atMost(Duration.ofSeconds(10)).until(() -> fixture.rows() == 0);
    }
}
