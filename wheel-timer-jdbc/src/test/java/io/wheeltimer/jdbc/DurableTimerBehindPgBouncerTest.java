package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.wheeltimer.testsupport.LogCapture;
import io.wheeltimer.testsupport.postgres.PgBouncerServer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.logging.Level;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * Two instances behind a real PgBouncer in transaction mode, whose server sessions last a few seconds
 * (so that several are closed under each instance during the run): each finds the pooler, says so once,
 * keeps no life lock and ends no other's lease. Thousands of timeouts: none starts before its deadline
 * by the database's clock, none twice, none is lost, none an instance held is taken from it while it
 * lives, and what each says it holds is what the table shows it holding. Then one is killed (its pool
 * closed at once, as a process's connections end): the other takes its timeouts over once its lease
 * runs out, within that lease and two polls. An instance connected directly, with its life lock, takes
 * nothing from a live one behind the pooler, which has none.
 */
class DurableTimerBehindPgBouncerTest {

    private static final String TASK = "order-payment";
    private static final Duration POLL = Duration.ofMillis(500);
    private static final Duration LEASE = Duration.ofSeconds(3);
    private static final Duration LOOKAHEAD = Duration.ofSeconds(5);
    private static final int TIMEOUTS = 3000;
    private static final Duration SPREAD = Duration.ofSeconds(15);
    private static final int AT_THE_KILL = 200;
    /** A loaded 2-core machine's margin on top of the lease and two polls. */
    private static final Duration MARGIN = Duration.ofMillis(1500);

    private static PgBouncerServer pooler;

    @BeforeAll
    static void startPooler() {
        assumeThat(TestDatabase.tested()).contains(TestDatabase.POSTGRESQL);
        pooler = PgBouncerServer.start(TestDatabase.sharedPostgres());
    }

    @AfterAll
    static void stopPooler() {
        if (pooler != null) {
            pooler.close();
        }
    }

    @Test
    void twoInstancesBehindAPoolerFireEachTimeoutOnceOnTimeAndTakeOverAKilledOneWhenItsLeaseRunsOut() throws Exception {
        try (DurableFixture fixture = new DurableFixture(TestDatabase.POSTGRESQL);
                HikariDataSource poolA = pooled(pooler);
                HikariDataSource poolB = pooled(pooler);
                LogCapture log = LogCapture.of(JdbcDurableTimer.class)) {
            String fired = fixture.table + "_fired";
            fixture.jdbc.execute("CREATE TABLE " + fired + " (timeout_key VARCHAR(200) NOT NULL, instance VARCHAR(200)"
                    + " NOT NULL, deadline_ms BIGINT NOT NULL, started_ms BIGINT NOT NULL)");
            JdbcDurableTimer a = start(fixture, poolA, "a", fired);
            JdbcDurableTimer b = start(fixture, poolB, "b", fired);
            // Found at the start: two connections reached one server session.
            assertThat(a.lifeLock().isLeaseAlone()).isTrue();
            assertThat(b.lifeLock().isLeaseAlone()).isTrue();

            // Half scheduled by each, due one after the other over SPREAD: those within the lookahead are
            // held by the one that scheduled them, the others by whichever claims them as they come near.
            long firstDeadline = System.currentTimeMillis() + 2000;
            long spacing = SPREAD.toMillis() / TIMEOUTS;
            List<DurableTimeout> forA = new ArrayList<>();
            List<DurableTimeout> forB = new ArrayList<>();
            for (int i = 0; i < TIMEOUTS; i++) {
                DurableTimeout timeout =
                        new DurableTimeout(TASK, "t-" + i, Instant.ofEpochMilli(firstDeadline + spacing * i));
                (i % 2 == 0 ? forA : forB).add(timeout);
            }
            a.scheduleAll(forA);
            b.scheduleAll(forB);

            // Until all have run: who the table shows holding each key, and whether each instance holds
            // what the table says it holds.
            Map<String, Set<String>> holdersSeen = new HashMap<>();
            int heldChecks = 0;
            long nextHeldCheck = System.nanoTime();
            long end = System.nanoTime() + SPREAD.plusSeconds(30).toNanos();
            while (count(fixture.jdbc, fired) < TIMEOUTS && System.nanoTime() - end < 0) {
                fixture.holders().forEach((key, holder) -> {
                    if (holder != null) {
                        holdersSeen.computeIfAbsent(key, k -> new HashSet<>()).add(holder);
                    }
                });
                if (System.nanoTime() - nextHeldCheck >= 0) {
                    for (JdbcDurableTimer x : List.of(a, b)) {
                        // Equal at some moment within a second: a claim or a run in flight may part them briefly.
                        await().atMost(Duration.ofSeconds(1))
                                .pollInterval(Duration.ofMillis(5))
                                .untilAsserted(() -> assertThat(x.held())
                                        .as("held by %s, against the table", x.instanceId())
                                        .isEqualTo(heldInTable(fixture, x.instanceId())));
                    }
                    heldChecks++;
                    nextHeldCheck = System.nanoTime() + Duration.ofSeconds(2).toNanos();
                }
                Thread.sleep(100);
            }
            List<Fired> runs = fired(fixture.jdbc, fired);
            Map<String, List<Fired>> runsByKey = byKey(runs);
            long early =
                    runs.stream().filter(r -> r.startedMs() < r.deadlineMs()).count();
            long twice = runsByKey.values().stream().filter(r -> r.size() > 1).count();
            long lost = TIMEOUTS - runsByKey.size();
            long taken = runsByKey.entrySet().stream()
                    .filter(e -> !Set.of(e.getValue().get(0).instance())
                            .containsAll(holdersSeen.getOrDefault(e.getKey(), Set.of())))
                    .count();
            System.out.println("PGBOUNCER-TEST: " + TIMEOUTS + " timeouts over " + SPREAD.toSeconds()
                    + " s behind PgBouncer (transaction mode, server_lifetime "
                    + PgBouncerServer.SERVER_LIFETIME.toSeconds() + " s): early " + early + ", twice " + twice
                    + ", lost " + lost + ", taken from a live instance " + taken + " (of " + holdersSeen.size()
                    + " seen held), fired by a "
                    + runs.stream().filter(r -> r.instance().equals("a")).count()
                    + ", by b "
                    + runs.stream().filter(r -> r.instance().equals("b")).count() + "; held checked "
                    + heldChecks + " times");
            assertThat(early)
                    .as("started before the deadline by the database's clock")
                    .isZero();
            assertThat(twice).as("run twice").isZero();
            assertThat(lost).as("lost").isZero();
            assertThat(holdersSeen).as("seen held").hasSizeGreaterThan(TIMEOUTS / 2);
            assertThat(taken).as("taken from a live instance").isZero();
            assertThat(heldChecks).isGreaterThanOrEqualTo(5);

            // b is killed while it holds timeouts due in a few seconds.
            fixture.jdbc.execute("DELETE FROM " + fired);
            long dueAfterKill = System.currentTimeMillis() + 1000;
            List<DurableTimeout> heldByB = new ArrayList<>();
            for (int i = 0; i < AT_THE_KILL; i++) {
                heldByB.add(new DurableTimeout(TASK, "k-" + i, Instant.ofEpochMilli(dueAfterKill + 5L * i)));
            }
            b.scheduleAll(heldByB);
            assertThat(fixture.holders().values()).containsOnly("b");
            long killedAtMs = System.currentTimeMillis();
            poolB.close(); // its connections end, as a killed process's do; b is left as it is, never stopped

            await().atMost(LEASE.plus(SPREAD)).until(() -> count(fixture.jdbc, fired) >= AT_THE_KILL);
            List<Fired> afterKill = fired(fixture.jdbc, fired);
            assertThat(byKey(afterKill).values()).as("runs per key").allMatch(r -> r.size() == 1);
            assertThat(afterKill).allMatch(r -> r.instance().equals("a"));
            assertThat(afterKill).allMatch(r -> r.startedMs() >= r.deadlineMs());
            long takeoverMs = afterKill.stream()
                    .mapToLong(r -> r.startedMs() - Math.max(r.deadlineMs(), killedAtMs))
                    .max()
                    .orElseThrow();
            System.out.println("PGBOUNCER-TEST: b killed holding " + AT_THE_KILL + " timeouts (lease "
                    + Durations.format(LEASE) + ", poll " + Durations.format(POLL) + "): a fired each once,"
                    + " at most " + takeoverMs + " ms after the later of its deadline and the kill");
            assertThat(takeoverMs)
                    .isLessThanOrEqualTo(
                            LEASE.plus(POLL.multipliedBy(2)).plus(MARGIN).toMillis());
            // Long enough that the lease, not a lock, was what told a that b was gone.
            assertThat(takeoverMs)
                    .isGreaterThan(
                            LEASE.minus(POLL.multipliedBy(2)).minusMillis(1000).toMillis());
            a.stop();

            for (String instance : List.of("a", "b")) {
                assertThat(log.messages(Level.WARNING))
                        .filteredOn(m -> m.contains("Durable timer " + instance + " on table " + fixture.table)
                                && m.contains("connection pooler in transaction mode"))
                        .singleElement()
                        .satisfies(m -> assertThat(m)
                                .contains("session locks cannot be kept through it")
                                .contains("its lease alone")
                                .contains("prepareThreshold=0"));
            }
        }
    }

    @Test
    void anInstanceConnectedDirectlyTakesNothingFromALiveOneBehindThePooler() throws Exception {
        try (DurableFixture fixture = new DurableFixture(TestDatabase.POSTGRESQL);
                HikariDataSource pool = pooled(pooler)) {
            String fired = fixture.table + "_fired";
            fixture.jdbc.execute("CREATE TABLE " + fired + " (timeout_key VARCHAR(200) NOT NULL, instance VARCHAR(200)"
                    + " NOT NULL, deadline_ms BIGINT NOT NULL, started_ms BIGINT NOT NULL)");
            JdbcDurableTimer pooled = start(fixture, pool, "pooled", fired);
            // Direct, with its life lock, polling five times as often: it looks at the pooled one's lease
            // row many times while that one holds its timeouts, and across several of the pooler's
            // recycles of its server sessions.
            JdbcTemplate direct = new JdbcTemplate(fixture.dataSource);
            JdbcDurableTimer d = fixture.start(fixture.builder()
                    .instanceId("direct")
                    .pollInterval(POLL.dividedBy(5))
                    .lease(LEASE)
                    .lookahead(LOOKAHEAD)
                    .handler(
                            TASK,
                            timeout -> direct.update(
                                    "INSERT INTO " + fired + " (timeout_key, instance, deadline_ms, started_ms)"
                                            + " VALUES (?, 'direct', ?, 0)",
                                    timeout.key(),
                                    timeout.deadline().toEpochMilli())));
            assertThat(pooled.lifeLock().isLeaseAlone()).isTrue();
            assertThat(d.lifeLock().isLeaseAlone()).isFalse();
            assertThat(d.lifeLock().isHeld()).isTrue();

            long first = System.currentTimeMillis() + 4000;
            List<DurableTimeout> timeouts = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                timeouts.add(new DurableTimeout(TASK, "p-" + i, Instant.ofEpochMilli(first + 3L * i)));
            }
            pooled.scheduleAll(timeouts);
            assertThat(fixture.holders().values()).containsOnly("pooled");

            await().atMost(Duration.ofSeconds(20)).until(() -> count(fixture.jdbc, fired) >= timeouts.size());
            List<Fired> runs = fired(fixture.jdbc, fired);
            assertThat(byKey(runs)).hasSize(timeouts.size());
            assertThat(runs)
                    .as("fired by the instance that held them")
                    .allMatch(r -> r.instance().equals("pooled"));
            pooled.stop();
        }
    }

    record Fired(String key, String instance, long deadlineMs, long startedMs) {}

    private static JdbcDurableTimer start(DurableFixture fixture, DataSource pool, String instance, String fired) {
        JdbcTemplate jdbc = new JdbcTemplate(pool);
        JdbcDurableTimer.Builder builder = JdbcDurableTimer.builder(
                        pool, new DataSourceTransactionManager(pool), fixture.wheel)
                .tableName(fixture.table)
                .instanceId(instance)
                .pollInterval(POLL)
                .lease(LEASE)
                .lookahead(LOOKAHEAD)
                // The database's time when the run starts, in the run's own transaction.
                .handler(
                        TASK,
                        timeout -> jdbc.update(
                                "INSERT INTO " + fired
                                        + " (timeout_key, instance, deadline_ms, started_ms) VALUES (?, ?, ?,"
                                        + " floor(extract(epoch from clock_timestamp()) * 1000)::bigint)",
                                timeout.key(),
                                instance,
                                timeout.deadline().toEpochMilli()));
        return fixture.start(builder);
    }

    private static HikariDataSource pooled(PgBouncerServer server) {
        return TestDatabase.pool(server.jdbcUrl(TestDatabase.DATABASE), server.username(), 10);
    }

    private static int heldInTable(DurableFixture fixture, String instance) {
        Integer n = fixture.jdbc.queryForObject(
                "SELECT COUNT(*) FROM " + fixture.table + " WHERE holder = ?", Integer.class, instance);
        return n == null ? 0 : n;
    }

    private static int count(JdbcTemplate jdbc, String fired) {
        Integer n = jdbc.queryForObject("SELECT COUNT(*) FROM " + fired, Integer.class);
        return n == null ? 0 : n;
    }

    private static List<Fired> fired(JdbcTemplate jdbc, String fired) {
        return jdbc.query(
                "SELECT timeout_key, instance, deadline_ms, started_ms FROM " + fired,
                (rs, i) -> new Fired(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getLong(4)));
    }

    private static Map<String, List<Fired>> byKey(List<Fired> runs) {
        Map<String, List<Fired>> byKey = new HashMap<>();
        runs.forEach(r -> byKey.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r));
        return byKey;
    }
}
