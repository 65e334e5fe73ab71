package io.wheeltimer.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import io.wheeltimer.jdbc.DurableTimer;
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
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

/**
 * Keeps the README's durable-timeout snippets true, beyond compiling, which {@link ReadmeSnippetsTest}
 * does for every block: the README has them, and the "Without Spring Boot" snippet is run on H2, with
 * the tables from the script the library ships: a timeout it schedules reaches the handler it
 * registers.
 */
class ReadmeDurableSnippetsTest {

    @TempDir
    static Path dir;

    private static List<String> snippets;

    @BeforeAll
    static void readTheSnippets() throws Exception {
        snippets = ReadmeSnippets.all();
    }

    /** The blocks that import the library: the Spring Boot quick start and the one without Spring Boot. */
    @Test
    void theReadmeHasItsDurableSnippets() {
        assertThat(snippets.stream()
                        .filter(s -> s.lines().anyMatch(line -> line.startsWith("import io.wheeltimer.jdbc."))))
                .as("the durable-timeout blocks")
                .hasSize(2)
                .anySatisfy(s -> assertThat(s).contains("@DurableTimerTask(\"order-payment\")"))
                .anySatisfy(s -> assertThat(s).contains("JdbcDurableTimer.builder("));
    }

    /** "Without Spring Boot": the timer it builds fires a timeout it schedules into the handler it names. */
    @Test
    void theWithoutSpringBootSnippetFiresTheTimeoutsItSchedules() throws Exception {
        String snippet = ReadmeSnippets.only(snippets, "JdbcDurableTimer.builder(");
        ExecutorService handlerExecutor = Executors.newSingleThreadExecutor();
        try (URLClassLoader loader = compile(snippet, "without-boot");
                HikariDataSource dataSource = h2("jdbc:h2:mem:readme-without-boot;DB_CLOSE_DELAY=-1")) {
            new ResourceDatabasePopulator(new ClassPathResource("io/wheeltimer/jdbc/schema-h2.sql"))
                    .execute(dataSource);
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

    private static HikariDataSource h2(String url) {
        HikariDataSource dataSource = new HikariDataSource();
        dataSource.setJdbcUrl(url);
        dataSource.setUsername("sa");
        dataSource.setMaximumPoolSize(5);
        return dataSource;
    }

    private static URLClassLoader compile(String source, String name) throws Exception {
        return ReadmeSnippets.compile(source, dir, name, ReadmeDurableSnippetsTest.class.getClassLoader());
    }
}
