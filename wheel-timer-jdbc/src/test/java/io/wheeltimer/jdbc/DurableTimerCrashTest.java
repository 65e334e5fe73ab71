package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A crash for real, on each database a JVM of its own can reach (not H2 in memory): an instance in a
 * JVM of its own, with the default lease (30 s) and poll interval (1 s), holds 100 timeouts due within a
 * few seconds, five of them in the middle of their handler's transaction. Killed with SIGKILL, its
 * sessions end, and its life lock with them: a survivor with the same defaults fires every one of them
 * once, each within a few seconds of the later of its deadline and the kill, long before the lease
 * would have let it. Paused with SIGSTOP for less than its lease, it keeps its sessions and its lock:
 * the survivor takes nothing, and the paused instance fires each once after SIGCONT.
 */
@ParameterizedClass
@MethodSource("io.wheeltimer.jdbc.TestDatabase#testedServers")
class DurableTimerCrashTest {

    private static final String TASK = "order-payment";
    private static final int BLOCKING = 5;
    private static final int LATER = 95;
    private static final Duration LEASE = JdbcDurableTimer.DEFAULT_LEASE;
    private static final Duration POLL = JdbcDurableTimer.DEFAULT_POLL_INTERVAL;

    /** How late after the later of its deadline and the kill a timeout may start: two polls and a margin for a loaded machine. */
    private static final Duration TAKEOVER_BOUND = Duration.ofSeconds(6);

    private final TestDatabase database;

    DurableTimerCrashTest(TestDatabase database) {
        this.database = database;
    }

    @Test
    void everyTimeoutAKilledInstanceHeldFiresOnceOnASurvivorWithinSecondsOfTheKill() throws Exception {
        try (DurableFixture fixture = new DurableFixture(database)) {
            RecordingHandler survivorHandler = fixture.writingHandler("survivor");
            fixture.start(withDefaults(fixture, "survivor").handler(TASK, survivorHandler));

            // Due at once and blocking in their handler: BLOCKING; due from 3 s after scheduling (a margin
            // for a slow machine to schedule them all before it is killed), 10 ms apart: LATER.
            Process doomed = startInstance(fixture, "doomed", BLOCKING, LATER, 3000, 10);
            Instant killedAt;
            try {
                awaitReady(doomed);
            } finally {
                killedAt = Instant.now();
                doomed.destroyForcibly(); // SIGKILL: no shutdown hook, no release, open transactions cut off
            }
            assertThat(doomed.waitFor(30, TimeUnit.SECONDS)).isTrue();

            // What the killed instance held: every row still in the table (those whose handlers it had
            // started are back once their sessions ended and their transactions rolled back).
            Map<String, Long> deadlines = new HashMap<>();
            fixture.jdbc.query("SELECT timeout_key, deadline FROM " + fixture.table, rs -> {
                deadlines.put(rs.getString(1), rs.getLong(2));
            });
            int heldByKilled = deadlines.size();

            await().atMost(Duration.ofSeconds(30))
                    .until(() -> fixture.writesPerKey().size() == BLOCKING + LATER);
            await().atMost(Duration.ofSeconds(10)).until(() -> fixture.rows() == 0);

            assertThat(fixture.writesPerKey().values())
                    .as("commits per timeout")
                    .containsOnly(1L);
            // Everything the killed instance held was fired by the survivor, the handlers it had started
            // included; it committed nothing it had started. (Only a later one it fired before the kill,
            // on a very slow machine, would be committed by it, once, and not be in the table.)
            assertThat(heldByKilled).as("held at the kill").isGreaterThanOrEqualTo((BLOCKING + LATER) / 2);
            assertThat(survivorHandler.count()).isEqualTo(heldByKilled);
            assertThat(fixture.writesPerInstance().get("survivor")).isEqualTo(heldByKilled);
            assertThat(survivorHandler.runs())
                    .filteredOn(r -> r.timeout().key().startsWith("blocking-"))
                    .hasSize(BLOCKING);

            List<Long> lateness = new ArrayList<>();
            for (RecordingHandler.Run run : survivorHandler.runs()) {
                long due = Math.max(deadlines.get(run.timeout().key()), killedAt.toEpochMilli());
                lateness.add(run.started().toEpochMilli() - due);
                // Long before the lease (renewed at most a poll before the kill) would have run out.
                assertThat(run.started())
                        .isBefore(killedAt.plus(LEASE).minus(POLL).minusSeconds(15));
            }
            lateness.sort(null);
            long p99 = lateness.get(Math.max(0, (int) Math.ceil(lateness.size() * 0.99) - 1));
            System.out.println("KILL-TEST (" + database + "): killed JVM (SIGKILL, lease " + Durations.format(LEASE)
                    + ", poll " + Durations.format(POLL) + ") held " + heldByKilled + " timeouts (" + BLOCKING
                    + " mid-transaction in their handler); the survivor fired each once; started after the later of"
                    + " deadline and kill: p50 " + lateness.get(lateness.size() / 2) + " ms, p99 " + p99 + " ms, max "
                    + lateness.get(lateness.size() - 1) + " ms");
            assertThat(lateness.get(lateness.size() - 1)).isLessThanOrEqualTo(TAKEOVER_BOUND.toMillis());
        }
    }

    @Test
    void anInstancePausedForLessThanItsLeaseKeepsItsTimeoutsAndFiresEachOnceWhenItGoesOn() throws Exception {
        try (DurableFixture fixture = new DurableFixture(database)) {
            RecordingHandler survivorHandler = fixture.writingHandler("survivor");
            fixture.start(withDefaults(fixture, "survivor").handler(TASK, survivorHandler));

            Process paused = startInstance(fixture, "paused", 0, 100, 4000, 10);
            try {
                awaitReady(paused);
                signal(paused, "STOP");
                // The deadlines pass, and the survivor polls six times, while the instance is stopped.
                Thread.sleep(6_000);
                assertThat(survivorHandler.count()).isZero();
                // What it had not fired before it was stopped (all of them, but on a very slow machine).
                assertThat(fixture.holders().values()).containsOnly("paused");
                assertThat(fixture.rows()).as("held while stopped").isGreaterThanOrEqualTo(50);

                signal(paused, "CONT");

                await().atMost(Duration.ofSeconds(30)).until(() -> fixture.rows() == 0);
                assertThat(fixture.writesPerKey()).hasSize(100);
                assertThat(fixture.writesPerKey().values())
                        .as("commits per timeout")
                        .containsOnly(1L);
                assertThat(fixture.writesPerInstance()).isEqualTo(Map.of("paused", 100L));
                assertThat(survivorHandler.count()).isZero();
            } finally {
                paused.destroyForcibly();
                paused.waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    private static JdbcDurableTimer.Builder withDefaults(DurableFixture fixture, String instance) {
        return fixture.builder().instanceId(instance).pollInterval(POLL).lease(LEASE);
    }

    /**
     * {@link CrashingInstance} in a JVM of its own, with the default lease and poll interval: {@code blocking}
     * timeouts due at once that block in their handler, and {@code later} due from {@code firstLaterAfter}
     * ms after scheduling, {@code spacing} ms apart.
     */
    private Process startInstance(
            DurableFixture fixture, String instance, int blocking, int later, long firstLaterAfter, long spacing)
            throws IOException {
        return new ProcessBuilder(
                        new File(System.getProperty("java.home"), "bin/java").getPath(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        CrashingInstance.class.getName(),
                        database.jdbcUrl(),
                        database.username(),
                        fixture.table,
                        instance,
                        String.valueOf(blocking),
                        String.valueOf(later),
                        String.valueOf(firstLaterAfter),
                        String.valueOf(spacing),
                        String.valueOf(LEASE.toMillis()),
                        String.valueOf(POLL.toMillis()))
                .redirectError(new File("target/crashing-instance-" + instance + "-" + database.scripts() + ".log"))
                .start();
    }

    private static void awaitReady(Process instance) throws Exception {
        BufferedReader out =
                new BufferedReader(new InputStreamReader(instance.getInputStream(), StandardCharsets.UTF_8));
        String ready = CompletableFuture.supplyAsync(() -> readReadyLine(out)).get(90, TimeUnit.SECONDS);
        assertThat(ready).startsWith(CrashingInstance.READY);
    }

    /** Sends {@code SIG<name>} to {@code instance}. */
    private static void signal(Process instance, String name) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + name, String.valueOf(instance.pid()))
                .inheritIO()
                .start();
        assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(kill.exitValue()).as("kill -%s", name).isZero();
    }

    private static String readReadyLine(BufferedReader out) {
        try {
            for (String line; (line = out.readLine()) != null; ) {
                if (line.startsWith(CrashingInstance.READY)) {
                    return line;
                }
            }
            throw new IllegalStateException("the instance to kill exited before it was ready");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
