package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.jdbc.internal.table.Claim;
import io.wheeltimer.jdbc.internal.table.PendingRow;
import io.wheeltimer.jdbc.internal.table.StoredData;
import io.wheeltimer.jdbc.internal.table.TimeoutTable;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A claim locks only the rows it takes. The rows due soon that a live instance holds lie on the
 * claim's way through the due index, ahead of the free ones; while the claim's transaction is open,
 * their runs go on at once. A claim that kept them locked to its commit would hold up every run due
 * meanwhile, at every poll. And a claim tells whether it found as many rows as it was allowed, counting
 * those a run has locked meanwhile: then more may be due, and the poller claims again at once.
 */
class ClaimLocksTest extends OnEachDatabase {

    private static final String TASK = "claims";
    private static final int HELD = 50;
    private static final int FREE = 5;

    ClaimLocksTest(TestDatabase database) {
        super(database);
    }

    @Test
    void aClaimInProgressLeavesTheRowsItDoesNotTakeFreeToRun() throws Exception {
        long now = fixture.databaseMillis();
        insertLease("live", now);
        insertRows("held-", HELD, now + 1_000, "live");
        insertRows("free-", FREE, now + 5_000, null);
        TimeoutTable claims =
                TimeoutTable.open(fixture.jdbc, fixture.jdbc, fixture.table, Set.of(TASK), Clock.systemUTC());
        // The run's own statement, on a connection of its own, giving up after 10 s where it would wait.
        JdbcTemplate runs = new JdbcTemplate(fixture.dataSource);
        runs.setQueryTimeout(10);
        TimeoutTable firing = TimeoutTable.open(runs, runs, fixture.table, Set.of(TASK), Clock.systemUTC());
        ExecutorService runner = Executors.newSingleThreadExecutor();
        try {
            fixture.transactions.executeWithoutResult(status -> {
                List<PendingRow> claimed = claims.claim("claimer", now + 10_000, now, now - 1_000, 100)
                        .taken();
                assertThat(claimed)
                        .extracting(PendingRow::key)
                        .containsExactlyInAnyOrderElementsOf(keys("free-", FREE));
                Future<Optional<StoredData>> run =
                        runner.submit(() -> firing.deleteForFiring(TASK, "held-0", 1, "live", now + 60_000));
                try {
                    assertThat(run.get(30, TimeUnit.SECONDS))
                            .as("the run of a row the claim passed over, while the claim is open")
                            .isPresent();
                } catch (Exception e) {
                    throw new AssertionError("the run of a row the claim passed over waited for the claim", e);
                }
            });
        } finally {
            runner.shutdownNow();
        }
        assertThat(fixture.holders())
                .as("holders once the claim committed")
                .containsEntry("held-1", "live")
                .containsEntry("free-0", "claimer")
                .doesNotContainKey("held-0");
    }

    @Test
    void aClaimThatFoundAsManyAsItsLimitSaysSoThoughOneOfThemIsRunning() throws Exception {
        long now = fixture.databaseMillis();
        insertLease("claimer", now);
        insertRows("running-", 1, now + 1_000, null);
        insertRows("free-", 6, now + 5_000, null);
        TimeoutTable claims =
                TimeoutTable.open(fixture.jdbc, fixture.jdbc, fixture.table, Set.of(TASK), Clock.systemUTC());
        CountDownLatch locked = new CountDownLatch(1);
        CountDownLatch claimed = new CountDownLatch(1);
        ExecutorService runner = Executors.newSingleThreadExecutor();
        try {
            // A run of the soonest row: its row locked until its transaction ends.
            Future<?> run = runner.submit(() -> fixture.transactions.executeWithoutResult(status -> {
                fixture.jdbc.queryForList(
                        "SELECT version FROM " + fixture.table + " WHERE task = ? AND timeout_key = ? FOR UPDATE",
                        TASK,
                        "running-0");
                locked.countDown();
                try {
                    claimed.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
            assertThat(locked.await(30, TimeUnit.SECONDS)).isTrue();
            Claim claim =
                    fixture.transactions.execute(status -> claims.claim("claimer", now + 10_000, now, now - 1_000, 5));
            claimed.countDown();
            run.get(30, TimeUnit.SECONDS);
            assertThat(claim.taken())
                    .extracting(PendingRow::key)
                    .as("taken while running-0 runs")
                    .doesNotContain("running-0")
                    .isNotEmpty();
            assertThat(claim.full())
                    .as(
                            "a claim with 6 claimable rows besides the running one, at most 5 allowed, says more may be due")
                    .isTrue();
            assertThat(claims.claim("claimer", now + 10_000, now, now - 1_000, 5)
                            .full())
                    .as("a claim that found fewer than its limit")
                    .isFalse();
        } finally {
            claimed.countDown();
            runner.shutdownNow();
        }
    }

    /** A live instance's lease, judged by itself alone (no life lock). */
    private void insertLease(String instance, long now) {
        fixture.jdbc.update(
                "INSERT INTO " + fixture.table + "_instances (instance_id, lease_until, life_lock) VALUES (?, ?, ?)",
                instance,
                now + 60_000,
                false);
    }

    private void insertRows(String prefix, int count, long dueAt, String holder) {
        fixture.jdbc.batchUpdate(
                "INSERT INTO " + fixture.table + " (task, timeout_key, deadline, due_at, holder, version)"
                        + " VALUES (?, ?, ?, ?, ?, 1)",
                keys(prefix, count).stream()
                        .map(key -> new Object[] {TASK, key, dueAt, dueAt, holder})
                        .toList());
    }

    private static List<String> keys(String prefix, int count) {
        return IntStream.range(0, count).mapToObj(i -> prefix + i).toList();
    }
}
