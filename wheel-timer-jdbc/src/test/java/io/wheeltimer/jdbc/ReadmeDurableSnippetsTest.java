package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.wheeltimer.spring.ReadmeSnippets;
import java.lang.reflect.Method;
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

/**
 * Keeps the README's durable-timeout snippets true: the {@code ```java} blocks that import {@code
 * io.wheeltimer.jdbc} are compiled as written (their own imports, no declarations assumed) against
 * this module's test class path; the auto-configuration module's {@code ReadmeSnippetsTest} compiles
 * all the others. The "Without Spring Boot" snippet is also run on H2: a timeout it schedules
 * reaches the handler it registers.
 */
class ReadmeDurableSnippetsTest {

    @TempDir
    static Path dir;

    private static List<String> snippets;

    @BeforeAll
    static void readTheSnippets() throws Exception {
        snippets = ReadmeSnippets.all();
    }

    /** This module compiles the durable-timeout blocks; the auto-configuration module all the others. */
    @Test
    void thisModuleAndTheAutoconfigureModuleTogetherCompileEveryBlock() {
        ReadmeSnippets.assertTheSharesCoverEveryBlock(snippets);
        assertThat(ReadmeSnippets.forJdbc(snippets))
                .as("the durable-timeout blocks")
                .hasSize(2)
                .anySatisfy(s -> assertThat(s).contains("@DurableTimerTask(\"order-payment\")"))
                .anySatisfy(s -> assertThat(s).contains("JdbcDurableTimer.builder("));
    }

    @TestFactory
    Stream<DynamicTest> everyDurableSnippetCompilesAsWritten() {
        return ReadmeSnippets.forJdbc(snippets).stream()
                .map(snippet -> DynamicTest.dynamicTest(
                        "snippet declaring " + ReadmeSnippets.typeNames(snippet),
                        () -> compile(snippet, "compile").close()));
    }

    /** "Without Spring Boot": the timer it builds fires a timeout it schedules into the handler it names. */
    @Test
    void theWithoutSpringBootSnippetFiresTheTimeoutsItSchedules() throws Exception {
        String snippet = only("JdbcDurableTimer.builder(");
        ExecutorService handlerExecutor = Executors.newSingleThreadExecutor();
        try (URLClassLoader loader = compile(snippet, "without-boot");
                HikariDataSource dataSource =
                        TestDatabase.pool("jdbc:h2:mem:readme-without-boot;DB_CLOSE_DELAY=-1", "sa", 5)) {
            TestDatabase.H2.createTables(dataSource, JdbcDurableTimer.DEFAULT_TABLE_NAME);
            Method run = loader.loadClass(ReadmeSnippets.typeNames(snippet).get(0))
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

    private static String only(String marker) {
        List<String> matching =
                snippets.stream().filter(s -> s.contains(marker)).toList();
        assertThat(matching).as("README snippets containing %s", marker).hasSize(1);
        return matching.get(0);
    }

    private static URLClassLoader compile(String source, String name) throws Exception {
        return ReadmeSnippets.compile(source, dir, name, ReadmeDurableSnippetsTest.class.getClassLoader());
    }
}
