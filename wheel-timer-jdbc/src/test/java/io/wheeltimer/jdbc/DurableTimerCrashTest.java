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
 * A crash for real, on each database a JVM of its own can reach (not H2 in memory): an instance in a JVM of its own, holding timeouts (some of them in the middle of
 * their handler's transaction), is killed with SIGKILL. A survivor fires every one of them once the
 * dead instance's lease has run out, and each handler's write commits exactly once.
 */
@ParameterizedClass
@MethodSource("io.wheeltimer.jdbc.TestDatabase#testedServers")
class DurableTimerCrashTest {

    private static final String TASK = "order-payment";
    private static final int BLOCKING = 5;
    private static final int LATER = 45;
    private static final Duration LEASE = Duration.ofSeconds(2);

    private final TestDatabase database;

    DurableTimerCrashTest(TestDatabase database) {
        this.database = database;
    }

    @Test
    void everyTimeoutAKilledInstanceHeldFiresOnceOnASurvivorAfterItsLease() throws Exception {
        try (DurableFixture fixture = new DurableFixture(database)) {
            RecordingHandler survivorHandler = fixture.writingHandler("survivor");
            // The survivor runs all along; the killed instance's timeouts become its own only when the
            // lease runs out.
            fixture.start(fixture.builder()
                    .instanceId("survivor")
                    .handler(TASK, survivorHandler)
                    .lease(LEASE));

            // Due at once and blocking in their handler: BLOCKING; due 4 s after scheduling and 40 ms
            // apart: LATER.
            Process doomed = new ProcessBuilder(
                            new File(System.getProperty("java.home"), "bin/java").getPath(),
                            "-cp",
                            System.getProperty("java.class.path"),
                            CrashingInstance.class.getName(),
                            database.jdbcUrl(),
                            database.username(),
                            fixture.table,
                            "doomed",
                            String.valueOf(BLOCKING),
                            String.valueOf(LATER),
                            "4000",
                            "40",
                            String.valueOf(LEASE.toMillis()))
                    .redirectError(new File("target/crashing-instance-" + database.scripts() + ".log"))
                    .start();
            String ready;
            try {
                BufferedReader out =
                        new BufferedReader(new InputStreamReader(doomed.getInputStream(), StandardCharsets.UTF_8));
                ready = CompletableFuture.supplyAsync(() -> readReadyLine(out)).get(90, TimeUnit.SECONDS);
            } finally {
                doomed.destroyForcibly(); // SIGKILL: no shutdown hook, no release, open transactions cut off
            }
            assertThat(doomed.waitFor(30, TimeUnit.SECONDS)).isTrue();
            Instant killedAt = Instant.now();
            assertThat(ready).startsWith(CrashingInstance.READY);

            // What the killed instance held: every row still in the table (those whose handlers it had
            // started are back once their connections died and their transactions rolled back).
            int heldByKilled = fixture.jdbc.queryForObject(
                    "SELECT COUNT(*) FROM " + fixture.table + " WHERE holder = 'doomed'", Integer.class);
            assertThat(fixture.rows()).isEqualTo(heldByKilled);
            long leaseUntil = fixture.jdbc.queryForObject(
                    "SELECT lease_until FROM " + fixture.table + "_instances WHERE instance_id = 'doomed'", Long.class);
            Map<String, Long> deadlines = new HashMap<>();
            fixture.jdbc.query("SELECT timeout_key, deadline FROM " + fixture.table, rs -> {
                deadlines.put(rs.getString(1), rs.getLong(2));
            });

            await().atMost(Duration.ofSeconds(60))
                    .until(() -> fixture.writesPerKey().size() == BLOCKING + LATER);
            await().atMost(Duration.ofSeconds(10)).until(() -> fixture.rows() == 0);

            assertThat(fixture.writesPerKey().values())
                    .as("commits per timeout")
                    .containsOnly(1L);
            // Everything the killed instance held was fired by the survivor, the handlers it had started
            // included; it committed nothing it had started. (Only a later one it fired before the kill,
            // on a very slow machine, would be committed by it, once, and not be in the table.)
            assertThat(heldByKilled).isGreaterThanOrEqualTo(BLOCKING);
            assertThat(survivorHandler.count()).isEqualTo(heldByKilled);
            assertThat(fixture.writesPerInstance().get("survivor")).isEqualTo(heldByKilled);
            assertThat(survivorHandler.runs())
                    .filteredOn(r -> r.timeout().key().startsWith("blocking-"))
                    .hasSize(BLOCKING);
            List<Long> lateness = new ArrayList<>();
            for (RecordingHandler.Run run : survivorHandler.runs()) {
                assertThat(run.started().toEpochMilli()).isGreaterThanOrEqualTo(leaseUntil);
                lateness.add(run.started().toEpochMilli()
                        - deadlines.get(run.timeout().key()));
            }
            lateness.sort(null);
            long onTime = survivorHandler.runs().stream()
                    .filter(r -> deadlines.get(r.timeout().key()) >= leaseUntil)
                    .filter(r -> r.started().toEpochMilli()
                                    - deadlines.get(r.timeout().key())
                            < 500)
                    .count();
            long dueAfterLease =
                    deadlines.values().stream().filter(d -> d >= leaseUntil).count();
            System.out.println("KILL-TEST (" + database + "): killed JVM (SIGKILL) held " + heldByKilled + " timeouts ("
                    + BLOCKING
                    + " mid-transaction in their handler); the survivor fired all " + survivorHandler.count()
                    + " after the lease ran out (" + (leaseUntil - killedAt.toEpochMilli()) + " ms after the kill),"
                    + " each handler write committed exactly once (none twice, none lost); lateness after the"
                    + " deadlines min " + lateness.get(0) + " ms, median " + lateness.get(lateness.size() / 2)
                    + " ms, max " + lateness.get(lateness.size() - 1) + " ms; " + onTime + " of the " + dueAfterLease
                    + " due after the lease ran out started within 500 ms of their deadline");
        }
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
