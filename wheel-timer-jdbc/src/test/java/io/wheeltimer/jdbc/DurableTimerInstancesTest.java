package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Several instances on one database, with a short poll and lease: each timeout fires exactly once and
 * is never held by two instances at a time; an instance without a handler for a task leaves that
 * task's timeouts alone.
 */
class DurableTimerInstancesTest extends OnEachDatabase {

    private static final String TASK = "order-payment";

    DurableTimerInstancesTest(TestDatabase database) {
        super(database);
    }

    private static final Duration POLL = Duration.ofMillis(100);
    private static final Duration LEASE = Duration.ofSeconds(1);

    private JdbcDurableTimer.Builder shortLease(String instance) {
        return fixture.builder()
                .instanceId(instance)
                .pollInterval(POLL)
                .lookahead(Duration.ofMillis(300))
                .lease(LEASE)
                .batchSize(50);
    }

    @Test
    void threeInstancesFireEveryTimeoutExactlyOnceAndNeverHoldOneTwice() {
        Map<String, RecordingHandler> handlers = new HashMap<>();
        List<JdbcDurableTimer> instances = new ArrayList<>();
        for (String id : List.of("i0", "i1", "i2")) {
            RecordingHandler handler = fixture.writingHandler(id);
            handlers.put(id, handler);
            instances.add(fixture.start(shortLease(id).handler(TASK, handler)));
        }
        // Unheld timeouts, as a released or dead instance leaves them, for the three to compete for...
        long now = System.currentTimeMillis();
        int unheld = 300;
        for (int i = 0; i < unheld; i++) {
            fixture.jdbc.update(
                    "INSERT INTO " + fixture.table
                            + " (task, timeout_key, deadline, due_at, holder, version, attempts)"
                            + " VALUES (?, ?, ?, ?, NULL, ?, 0)",
                    TASK,
                    "unheld-" + i,
                    now + 200 + 7L * i,
                    now + 200 + 7L * i,
                    i);
        }
        // ...and timeouts scheduled on each instance: held by it from the start once due within its
        // lookahead, else left for whichever instance's poll finds them near.
        int scheduled = 150;
        for (int i = 0; i < scheduled; i++) {
            instances.get(i % 3).schedule(TASK, "scheduled-" + i, Duration.ofMillis(300 + 10L * i));
        }

        // Watch what each instance holds while they run.
        Queue<String> heldTwice = new ConcurrentLinkedQueue<>();
        AtomicLong maxPollAge = new AtomicLong();
        ScheduledExecutorService watcher = Executors.newSingleThreadScheduledExecutor();
        watcher.scheduleWithFixedDelay(
                () -> {
                    Set<String> seen = new HashSet<>();
                    for (JdbcDurableTimer instance : instances) {
                        if (instance.isRunning()) {
                            instance.lastSuccessfulPoll()
                                    .ifPresent(p -> maxPollAge.accumulateAndGet(
                                            Duration.between(p, Instant.now()).toMillis(), Math::max));
                        }
                        for (String key : instance.heldKeys()) {
                            if (!seen.add(key)) {
                                heldTwice.add(key);
                            }
                        }
                    }
                },
                0,
                10,
                TimeUnit.MILLISECONDS);
        try {
            // One instance stops gracefully midway, while it holds timeouts: the others take over what it
            // held. (Which instance claims a row is a race: wait for a moment when this one holds some.)
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> fixture.writesPerKey().size() >= 100
                            && instances.get(1).held() > 0);
            instances.get(1).stop();

            int total = unheld + scheduled;
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> fixture.writesPerKey().size() == total);
            await().atMost(Duration.ofSeconds(10)).until(() -> fixture.rows() == 0);
        } finally {
            watcher.shutdownNow();
        }

        Map<String, Long> writes = fixture.writesPerKey();
        assertThat(writes.values()).as("commits per timeout").containsOnly(1L);
        Map<String, Integer> runs = new HashMap<>();
        handlers.values()
                .forEach(h -> h.runs().forEach(r -> runs.merge(r.timeout().key(), 1, Integer::sum)));
        assertThat(runs).hasSize(unheld + scheduled);
        assertThat(runs.values()).as("runs per timeout").containsOnly(1);
        Map<String, Long> perInstance = fixture.writesPerInstance();
        System.out.println("INSTANCES (" + database + "): " + (unheld + scheduled)
                + " timeouts fired once each, per instance " + perInstance + "; longest time since an instance's"
                + " last successful poll " + maxPollAge + " ms");
        // Two instances may both have a timeout armed only after the first one's lease lapsed (a poll
        // thread starved for longer than the lease on a loaded machine): the second took it over, and
        // the first one's firing then finds the row held by another and does nothing.
        if (maxPollAge.get() < LEASE.minus(POLL).toMillis()) {
            assertThat(heldTwice).as("timeouts held by two instances at once").isEmpty();
        }
        assertThat(perInstance.keySet()).as("instances that fired some").contains("i0", "i2");
    }

    @Test
    void anInstanceWithoutAHandlerForATaskLeavesItsTimeoutsAlone() {
        long now = System.currentTimeMillis();
        for (String task : List.of("order-payment", "order-shipping")) {
            for (int i = 0; i < 3; i++) {
                fixture.jdbc.update(
                        "INSERT INTO " + fixture.table
                                + " (task, timeout_key, deadline, due_at, holder, version, attempts)"
                                + " VALUES (?, ?, ?, ?, NULL, 1, 0)",
                        task,
                        task + "-" + i,
                        now,
                        now);
            }
        }
        RecordingHandler paymentsOnly = fixture.writingHandler("old");
        JdbcDurableTimer old = fixture.start(shortLease("old").handler("order-payment", paymentsOnly));

        await().atMost(Duration.ofSeconds(10)).until(() -> paymentsOnly.count() == 3);
        // Several more polls: the shipping timeouts stay unheld.
        await().during(Duration.ofMillis(600))
                .atMost(Duration.ofSeconds(5))
                .until(() -> unheldKeys().size() == 3 && old.held() == 0);
        assertThat(unheldKeys()).allMatch(key -> key.startsWith("order-shipping-"));

        // A newer instance of a rolling deploy handles them.
        RecordingHandler both = fixture.writingHandler("new");
        fixture.start(shortLease("new").handler("order-payment", both).handler("order-shipping", both));
        await().atMost(Duration.ofSeconds(10)).until(() -> both.count() == 3);
        assertThat(both.runs()).allMatch(r -> r.timeout().task().equals("order-shipping"));
        assertThat(fixture.rows()).isZero();
    }

    private List<String> unheldKeys() {
        return fixture.jdbc.queryForList(
                "SELECT timeout_key FROM " + fixture.table + " WHERE holder IS NULL", String.class);
    }
}
