package io.wheeltimer.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.Timeout;
import io.wheeltimer.jdbc.DurableTimer;
import io.wheeltimer.spring.autoconfigure.WheelTimerAutoConfiguration;
import io.wheeltimer.testing.ManualTicker;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

/**
 * Keeps the Java snippets of the README and the guides true: every {@code ```java} block is compiled
 * as written (its own imports, no declarations assumed) against this module's test class path, which holds the
 * core, the auto-configuration, the durable timeouts, the Netty view, Spring (web sockets and
 * messaging included), Lettuce, AsyncHttpClient, H2 and JUnit. A snippet that is a JUnit test is
 * run, the "More timers" configuration is started with the {@code @WheelTimeout} snippet to see
 * where its calls go, and the durable timeouts' "Without Spring Boot" snippet is run on H2. A snippet
 * that does not compile fails naming its file and line.
 */
class DocSnippetsTest {

    @TempDir
    static Path dir;

    private static List<DocFiles.Block> snippets;

    @BeforeAll
    static void readTheSnippets() throws Exception {
        snippets = DocSnippets.all();
    }

    @Test
    void theDocsHaveTheirSnippets() {
        assertThat(snippets.stream().map(DocFiles.Block::body))
                .as("the java blocks of the README and the guides")
                .hasSizeGreaterThanOrEqualTo(6)
                .anySatisfy(s -> assertThat(s).contains("@WheelTimeout"))
                .anySatisfy(s -> assertThat(s).contains("@WheelTimeLimit"))
                .anySatisfy(s -> assertThat(s).contains("ManualTicker"))
                .anySatisfy(s -> assertThat(s).contains("defaultCandidate = false"));
    }

    /**
     * The blocks that import the library: the quick start, the durable guide's API, data with Spring
     * Boot, the one without Spring Boot and the db-scheduler migration's.
     */
    @Test
    void theDocsHaveTheirDurableSnippets() {
        assertThat(snippets.stream()
                        .map(DocFiles.Block::body)
                        .filter(s -> s.lines().anyMatch(line -> line.startsWith("import io.wheeltimer.jdbc."))))
                .as("the durable-timeout blocks")
                .hasSize(5)
                .anySatisfy(s -> assertThat(s).contains("@DurableTimerTask(\"trial-end\")"))
                .anySatisfy(s -> assertThat(s).contains("@DurableTimerTask(\"reminder\")"))
                .anySatisfy(s -> assertThat(s).contains("@DurableTimerTask(\"order-payment\")"))
                .anySatisfy(s -> assertThat(s).contains("cancelIfUnpaid(String orderId, PaymentDeadline deadline)"))
                .anySatisfy(s -> assertThat(s).contains("JdbcDurableTimer.builder("));
    }

    @TestFactory
    Stream<DynamicTest> everySnippetCompilesAsWritten() {
        return snippets.stream()
                .map(snippet -> DynamicTest.dynamicTest(
                        snippet.where() + " declaring " + typeNames(snippet.body()),
                        () -> compile(snippet.body(), snippet.where())));
    }

    /** The snippet of the core's "Tests without sleeping" is a JUnit test: it passes. */
    @Test
    void theManualTickerSnippetPasses() throws Exception {
        String snippet = DocSnippets.only(snippets, "ManualTicker ticker = new ManualTicker()");
        try (URLClassLoader loader = compile(snippet, "manual-ticker")) {
            Class<?> test = loader.loadClass(typeNames(snippet).get(0));
            int run = 0;
            for (Method method : test.getDeclaredMethods()) {
                if (method.isAnnotationPresent(org.junit.jupiter.api.Test.class)) {
                    method.setAccessible(true);
                    var constructor = test.getDeclaredConstructor();
                    constructor.setAccessible(true);
                    method.invoke(constructor.newInstance());
                    run++;
                }
            }
            assertThat(run).as("test methods run").isOne();
        }
    }

    /**
     * The "More timers" configuration beside the {@code @WheelTimeout} snippet: the application
     * starts, the call goes to the auto-configured {@code wheelTimer}, and {@code auditTimer}
     * stays for the methods that name it.
     */
    @Test
    void theMoreTimersConfigurationLeavesTheWheelTimeoutSnippetOnWheelTimer() throws Exception {
        String timers = DocSnippets.only(snippets, "defaultCandidate = false");
        String deadlines = DocSnippets.only(snippets, "@WheelTimeout(delay");
        try (URLClassLoader loader = compile(timers + "\n" + deadlines, "more-timers")) {
            Class<?> configuration = loader.loadClass("Timers");
            Class<?> paymentDeadlines = loader.loadClass("PaymentDeadlines");
            Class<?> orderStore = loader.loadClass("OrderStore");
            List<String> cancelled = new CopyOnWriteArrayList<>();
            Object store = Proxy.newProxyInstance(loader, new Class<?>[] {orderStore}, (proxy, method, args) -> {
                if (method.getName().equals("cancelIfStillPending")) {
                    cancelled.add((String) args[0]);
                }
                return null;
            });
            new ApplicationContextRunner()
                    .withClassLoader(loader)
                    .withConfiguration(AutoConfigurations.of(
                            PropertyPlaceholderAutoConfiguration.class, WheelTimerAutoConfiguration.class))
                    .withPropertyValues("wheel-timer.annotation.executor=")
                    .withBean(ManualTicker.class, ManualTicker::new)
                    .withBean("orderStore", asType(orderStore), () -> store)
                    .withUserConfiguration(configuration)
                    .withBean("paymentDeadlines", paymentDeadlines)
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        HashedWheelTimer wheelTimer = context.getBean("wheelTimer", HashedWheelTimer.class);
                        HashedWheelTimer auditTimer = context.getBean("auditTimer", HashedWheelTimer.class);
                        assertThat(auditTimer.name()).isEqualTo("audit");

                        Object bean = context.getBean("paymentDeadlines");
                        Method cancelIfUnpaid = bean.getClass().getMethod("cancelIfUnpaid", String.class);
                        cancelIfUnpaid.setAccessible(true);
                        Timeout timeout = (Timeout) cancelIfUnpaid.invoke(bean, "order-1");

                        assertThat(timeout.timer()).isSameAs(wheelTimer);
                        assertThat(auditTimer.pendingTimeouts()).isZero();
                        context.getBean(ManualTicker.class).advance(Duration.ofMinutes(30));
                        assertThat(cancelled).containsExactly("order-1");
                    });
        }
    }

    /** "Without Spring Boot": the timer it builds fires a timeout it schedules into the handler it names. */
    @Test
    void theWithoutSpringBootSnippetFiresTheTimeoutsItSchedules() throws Exception {
        String snippet = DocSnippets.only(snippets, "JdbcDurableTimer.builder(");
        ExecutorService handlerExecutor = Executors.newSingleThreadExecutor();
        try (URLClassLoader loader = compile(snippet, "without-boot");
                HikariDataSource dataSource = h2("jdbc:h2:mem:readme-without-boot;DB_CLOSE_DELAY=-1")) {
            new ResourceDatabasePopulator(new ClassPathResource("io/wheeltimer/jdbc/schema-h2.sql"))
                    .execute(dataSource);
            Method run = loader.loadClass(DocSnippets.typeNames(snippet).get(0))
                    .getDeclaredMethod("run", DataSource.class, Executor.class, Consumer.class, Consumer.class);
            run.setAccessible(true);
            List<String> cancelled = new CopyOnWriteArrayList<>();
            Consumer<String> cancelIfUnpaid = cancelled::add;
            Consumer<DurableTimer> application = deadlines -> {
                deadlines.schedule("order-payment", "order-1", Duration.ofMillis(50));
                await().atMost(Duration.ofSeconds(30))
                        .untilAsserted(() -> assertThat(cancelled).containsExactly("order-1"));
            };

            run.invoke(null, dataSource, handlerExecutor, cancelIfUnpaid, application);

            assertThat(cancelled).as("handler runs").containsExactly("order-1");
        } finally {
            handlerExecutor.shutdownNow();
        }
    }

    private static HikariDataSource h2(String url) {
        HikariDataSource dataSource = new HikariDataSource();
        dataSource.setJdbcUrl(url);
        dataSource.setUsername("sa");
        dataSource.setMaximumPoolSize(5);
        return dataSource;
    }

    @SuppressWarnings("unchecked")
    private static Class<Object> asType(Class<?> type) {
        return (Class<Object>) type;
    }

    private static List<String> typeNames(String source) {
        return DocSnippets.typeNames(source);
    }

    private static URLClassLoader compile(String source, String name) throws Exception {
        return DocSnippets.compile(source, dir, name, DocSnippetsTest.class.getClassLoader());
    }
}
