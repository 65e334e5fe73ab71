package io.wheeltimer.spring.autoconfigure.durable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.jdbc.DurableTimerTask;
import io.wheeltimer.jdbc.JdbcDurableTimer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * Several Boot applications on one PostgreSQL database, as instances of one service: each timeout
 * runs once and its writes commit once across them; one that closes gracefully hands its timeouts
 * over long before its lease would run out; and one without the handler of a task (an older version,
 * during a rolling deploy) never claims that task's timeouts.
 */
class MultiInstanceTest {

    /** Who ran what: "task:key" to the instances that ran it, in this JVM. */
    static final Map<String, Queue<String>> RUNS = new ConcurrentHashMap<>();
    /** When each "task:key" ran. */
    static final Map<String, Instant> RAN_AT = new ConcurrentHashMap<>();

    /** Records the run in memory and, in the handler's transaction, in table {@code fired}. */
    abstract static class Recording {
        @Value("${wheel-timer.durable.instance-id}")
        String instance;

        JdbcTemplate jdbc;

        Recording(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        void record(String task, String key) {
            RUNS.computeIfAbsent(task + ":" + key, k -> new ConcurrentLinkedQueue<>())
                    .add(instance);
            RAN_AT.putIfAbsent(task + ":" + key, Instant.now());
            jdbc.update("INSERT INTO fired (task, timeout_key, instance) VALUES (?, ?, ?)", task, key, instance);
        }
    }

    public static class AlphaHandler extends Recording {
        public AlphaHandler(JdbcTemplate jdbc) {
            super(jdbc);
        }

        @DurableTimerTask("alpha")
        public void alpha(String key) {
            record("alpha", key);
        }
    }

    public static class BetaHandler extends Recording {
        public BetaHandler(JdbcTemplate jdbc) {
            super(jdbc);
        }

        @DurableTimerTask("beta")
        public void beta(String key) {
            record("beta", key);
        }
    }

    @SpringBootConfiguration
    @ImportAutoConfiguration({
        org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration.class,
        org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration.class,
        org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration.class,
        org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration.class,
        org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration.class,
        org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration.class,
        io.wheeltimer.spring.autoconfigure.WheelTimerAutoConfiguration.class,
        DurableTimerAutoConfiguration.class
    })
    static class App {}

    private final List<ConfigurableApplicationContext> instances = new ArrayList<>();
    private final List<HashedWheelTimer> wheels = new ArrayList<>();
    private List<String> database;
    private DataSource dataSource;
    private JdbcTemplate jdbc;

    @BeforeEach
    void database() {
        RUNS.clear();
        RAN_AT.clear();
        database = Database.POSTGRESQL.newDatabase();
        String url = database.get(0).substring("spring.datasource.url=".length());
        dataSource = new DriverManagerDataSource(url, Database.server().username(), "");
        jdbc = new JdbcTemplate(dataSource);
        jdbc.execute(new String(readSchema()));
        jdbc.execute("CREATE TABLE fired (task VARCHAR(50), timeout_key VARCHAR(50), instance VARCHAR(50))");
    }

    @AfterEach
    void closeInstances() {
        instances.forEach(ConfigurableApplicationContext::close);
        wheels.forEach(HashedWheelTimer::stop);
    }

    @Test
    void eachTimeoutRunsOnceAndCommitsOnceAcrossThreeInstances() {
        for (String name : List.of("a", "b", "c")) {
            start(name, Duration.ofSeconds(5), AlphaHandler.class);
        }
        // Unheld rows, as a stopped instance leaves them: all three race to claim them.
        JdbcDurableTimer unheld = unstartedTimer();
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 150; i++) {
            String key = "unheld-" + i;
            unheld.schedule(
                    "alpha",
                    key,
                    Duration.ofMillis(300 + ThreadLocalRandom.current().nextInt(1500)));
            keys.add("alpha:" + key);
        }
        // And timeouts each instance schedules, held by it from the start.
        for (ConfigurableApplicationContext instance : instances) {
            JdbcDurableTimer timer = DurableApps.holdingTimer(instance);
            for (int i = 0; i < 20; i++) {
                String key = timer.instanceId() + "-" + i;
                timer.schedule(
                        "alpha",
                        key,
                        Duration.ofMillis(ThreadLocalRandom.current().nextInt(1500)));
                keys.add("alpha:" + key);
            }
        }

        await().atMost(Duration.ofSeconds(60)).until(() -> RUNS.keySet().containsAll(keys));
        assertThat(RUNS).allSatisfy((key, ranOn) -> assertThat(ranOn).as(key).hasSize(1));
        assertThat(committedPerKey())
                .hasSize(keys.size())
                .allSatisfy((key, commits) -> assertThat(commits).as(key).isEqualTo(1));
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM wheel_timer_timeouts", Integer.class))
                .isZero();
        Map<String, Long> perInstance =
                RUNS.values().stream().map(Queue::peek).collect(Collectors.groupingBy(i -> i, Collectors.counting()));
        System.out.println("Runs per instance: " + perInstance);
    }

    @Test
    void aGracefulCloseHandsItsTimeoutsOverBeforeItsLeaseWouldRunOut() {
        Duration lease = Duration.ofSeconds(30);
        ConfigurableApplicationContext leaving = start("leaving", lease, AlphaHandler.class);
        start("staying", lease, AlphaHandler.class);
        JdbcDurableTimer timer = DurableApps.holdingTimer(leaving);
        DurableApps.holdingTimer(instances.get(1));
        Instant deadline = Instant.now().plusSeconds(2);
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            timer.schedule("alpha", "k" + i, deadline);
            keys.add("alpha:k" + i);
        }
        assertThat(timer.held()).isEqualTo(30);

        leaving.close();
        Instant closed = Instant.now();

        await().atMost(Duration.ofSeconds(60)).until(() -> RUNS.keySet().containsAll(keys));
        assertThat(RUNS).allSatisfy((key, ranOn) -> assertThat(ranOn).as(key).containsExactly("staying"));
        assertThat(committedPerKey())
                .allSatisfy((key, commits) -> assertThat(commits).as(key).isEqualTo(1));
        Instant last = RAN_AT.values().stream().max(Instant::compareTo).orElseThrow();
        assertThat(last)
                .as("all ran within 10 s of their deadline, far sooner than the 30 s lease of the closed one")
                .isBefore(deadline.plusSeconds(10))
                .isBefore(closed.plus(lease));
    }

    @Test
    void anInstanceWithoutTheHandlerOfATaskNeverClaimsIt() throws InterruptedException {
        // The old version handles alpha only; the new one alpha and beta.
        ConfigurableApplicationContext oldVersion = start("old", Duration.ofSeconds(5), AlphaHandler.class);
        JdbcDurableTimer old = DurableApps.holdingTimer(oldVersion);
        JdbcDurableTimer unheld = unstartedTimer();
        List<String> betaKeys = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            unheld.schedule("beta", "b" + i, Duration.ofMillis(200));
            unheld.schedule("alpha", "a" + i, Duration.ofMillis(200));
            betaKeys.add("beta:b" + i);
        }

        // The old version runs the alpha timeouts, and for many polls leaves beta's unheld.
        await().atMost(Duration.ofSeconds(60)).until(() -> RUNS.size() == 10);
        for (int poll = 0; poll < 20; poll++) {
            assertThat(jdbc.queryForList("SELECT holder FROM wheel_timer_timeouts WHERE task = 'beta'", String.class))
                    .hasSize(10)
                    .containsOnlyNulls();
            Thread.sleep(100); // real polls of the old version happen meanwhile
        }
        assertThat(RUNS.keySet()).noneMatch(key -> key.startsWith("beta:"));
        assertThat(old.tasks()).containsExactly("alpha");

        start("new", Duration.ofSeconds(5), AlphaHandler.class, BetaHandler.class);
        await().atMost(Duration.ofSeconds(60)).until(() -> RUNS.keySet().containsAll(betaKeys));
        assertThat(betaKeys).allSatisfy(key -> assertThat(RUNS.get(key)).containsExactly("new"));
    }

    private ConfigurableApplicationContext start(String name, Duration lease, Class<?>... handlers) {
        List<Object> sources = new ArrayList<>(List.of(App.class));
        sources.addAll(List.of(handlers));
        List<String> properties = new ArrayList<>(database);
        properties.addAll(List.of(DurableApps.FAST));
        properties.addAll(List.of(
                "wheel-timer.durable.instance-id=" + name,
                "wheel-timer.durable.lease=" + lease.toMillis() + "ms",
                "wheel-timer.durable.initialize-schema=never",
                "spring.main.banner-mode=off"));
        ConfigurableApplicationContext context = new SpringApplicationBuilder(sources.toArray(Class<?>[]::new))
                .web(WebApplicationType.NONE)
                .registerShutdownHook(false)
                .properties(properties.toArray(String[]::new))
                .run("--" + DurableApps.WITH_DATA_SOURCE);
        instances.add(context);
        return context;
    }

    /** A durable timer never started: what it schedules is left unheld, for a poll to claim. */
    private JdbcDurableTimer unstartedTimer() {
        HashedWheelTimer wheel = HashedWheelTimer.builder().name("unused").build();
        wheels.add(wheel);
        return JdbcDurableTimer.builder(dataSource, new DataSourceTransactionManager(dataSource), wheel)
                .instanceId("scheduler")
                .handler("alpha", timeout -> {})
                .handler("beta", timeout -> {})
                .build();
    }

    private Map<String, Integer> committedPerKey() {
        Map<String, Integer> commits = new ConcurrentHashMap<>();
        jdbc.query("SELECT task, timeout_key FROM fired", row -> {
            commits.merge(row.getString(1) + ":" + row.getString(2), 1, Integer::sum);
        });
        return commits;
    }

    private static byte[] readSchema() {
        try (var in = MultiInstanceTest.class.getResourceAsStream("/io/wheeltimer/jdbc/schema-postgresql.sql")) {
            return in.readAllBytes();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
