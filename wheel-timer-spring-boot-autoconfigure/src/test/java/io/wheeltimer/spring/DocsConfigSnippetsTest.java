package io.wheeltimer.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.wheeltimer.jdbc.DurableTimer;
import io.wheeltimer.jdbc.DurableTimerTask;
import io.wheeltimer.spring.autoconfigure.WheelTimerAutoConfiguration;
import io.wheeltimer.spring.autoconfigure.WheelTimerMetricsAutoConfiguration;
import io.wheeltimer.spring.autoconfigure.durable.DurableTimerAutoConfiguration;
import io.wheeltimer.spring.autoconfigure.durable.DurableTimerMetricsAutoConfiguration;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.env.PropertiesPropertySourceLoader;
import org.springframework.boot.env.PropertySourceLoader;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;

/**
 * Every YAML and properties block of the README and the guides is application configuration, marked
 * {@code <!-- application-config -->} on the line before its fence, and binds: an application with
 * the wheel timer, durable timeouts, a DataSource, Hikari and Micrometer starts with the block as its
 * configuration. A block that does not (a value that does not parse, {@code connection-timeout: 5s}
 * for Hikari's milliseconds) fails naming its file and line. The block's database URL is replaced by
 * an H2 one of the test's (no server a guide names is reachable here); everything else binds as
 * written.
 */
class DocsConfigSnippetsTest {

    static final String MARKER = "application-config";

    private static final AutoConfigurations APPLICATION = AutoConfigurations.of(
            PropertyPlaceholderAutoConfiguration.class,
            DataSourceAutoConfiguration.class,
            DataSourceTransactionManagerAutoConfiguration.class,
            TransactionAutoConfiguration.class,
            JdbcTemplateAutoConfiguration.class,
            TaskExecutionAutoConfiguration.class,
            MetricsAutoConfiguration.class,
            SimpleMetricsExportAutoConfiguration.class,
            WheelTimerAutoConfiguration.class,
            WheelTimerMetricsAutoConfiguration.class,
            DurableTimerAutoConfiguration.class,
            DurableTimerMetricsAutoConfiguration.class);

    /** A handler, so that the durable timer has a task and starts. */
    static class Handlers {
        @DurableTimerTask("order-payment")
        public void cancelIfUnpaid(String orderId) {}
    }

    @Test
    void everyYamlAndPropertiesBlockIsMarkedAsApplicationConfiguration() {
        List<String> unmarked = configBlocks()
                .filter(block -> !MARKER.equals(block.marker()))
                .map(DocFiles.Block::where)
                .toList();
        assertThat(unmarked)
                .as("yaml and properties blocks without <!-- %s --> on the line before the fence", MARKER)
                .isEmpty();
        assertThat(configBlocks().count()).as("configuration blocks").isGreaterThanOrEqualTo(4);
    }

    @TestFactory
    Stream<DynamicTest> everyConfigurationBlockStartsAnApplication() {
        return configBlocks().map(block -> DynamicTest.dynamicTest(block.where(), () -> assertStarts(block)));
    }

    /** The test itself: the durable quick start with Hikari's timeout written as a duration fails. */
    @Test
    void aDurationWhereHikariWantsMillisecondsFailsNamingTheBlock() {
        DocFiles.Block wrong = new DocFiles.Block(
                DocFiles.ROOT.resolve("README.md"),
                1,
                "yaml",
                MARKER,
                "spring:\n  datasource:\n    hikari:\n      connection-timeout: 5s\n");
        Throwable failure = org.assertj.core.api.Assertions.catchThrowable(() -> assertStarts(wrong));
        assertThat(failure).isInstanceOf(AssertionError.class).hasMessageContaining("README.md:1");
    }

    private static Stream<DocFiles.Block> configBlocks() {
        return DocFiles.allBlocks().stream()
                .filter(block -> List.of("yaml", "yml", "properties").contains(block.language()));
    }

    private static void assertStarts(DocFiles.Block block) throws Exception {
        List<PropertySource<?>> sources = load(block);
        String url = "jdbc:h2:mem:docs-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
        // The tables, as a migration would have made them: a block may set initialize-schema=never.
        new ResourceDatabasePopulator(new ClassPathResource("io/wheeltimer/jdbc/schema-h2.sql"))
                .execute(new DriverManagerDataSource(url, "sa", ""));
        Map<String, Object> testDatabase = Map.of(
                "spring.datasource.url", url,
                "spring.datasource.username", "sa",
                "spring.datasource.password", "");
        new ApplicationContextRunner()
                .withConfiguration(APPLICATION)
                .withInitializer(context -> {
                    var propertySources = context.getEnvironment().getPropertySources();
                    sources.forEach(propertySources::addLast);
                    propertySources.addFirst(new MapPropertySource("test database", testDatabase));
                })
                .withBean(Handlers.class)
                .run(context -> {
                    assertThat(context.getStartupFailure())
                            .as("the application of %s:%n%s", block.where(), block.body())
                            .isNull();
                    assertThat(context).hasSingleBean(DurableTimer.class);
                });
    }

    private static List<PropertySource<?>> load(DocFiles.Block block) throws Exception {
        PropertySourceLoader loader = block.language().equals("properties")
                ? new PropertiesPropertySourceLoader()
                : new YamlPropertySourceLoader();
        ByteArrayResource resource =
                new ByteArrayResource(block.body().getBytes(StandardCharsets.UTF_8), block.where());
        List<PropertySource<?>> sources = loader.load(block.where(), resource);
        assertThat(sources).as("%s read as %s", block.where(), block.language()).isNotEmpty();
        return sources;
    }
}
