package io.wheeltimer.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.wheeltimer.jdbc.DurableTimer;
import io.wheeltimer.jdbc.DurableTimerTask;
import io.wheeltimer.spring.autoconfigure.WheelTimerAutoConfiguration;
import io.wheeltimer.spring.autoconfigure.WheelTimerMetricsAutoConfiguration;
import io.wheeltimer.spring.autoconfigure.durable.DurableTimerAutoConfiguration;
import io.wheeltimer.spring.autoconfigure.durable.DurableTimerMetricsAutoConfiguration;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus.PrometheusMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.io.ByteArrayResource;
import org.yaml.snakeyaml.Yaml;

/**
 * The alert rules of the docs ({@code docs/prometheus/wheel-timer-rules.yml}) load in Prometheus
 * ({@code promtool check rules}; the build installs promtool, {@code src/test/sh/ensure-promtool.sh}),
 * and every series they and the operations guide read is one a real scrape has: an application with
 * the Prometheus registry and the operations guide's configuration, whose durable timeout fired.
 */
class PrometheusRulesTest {

    private static final Path RULES = DocFiles.ROOT.resolve("docs/prometheus/wheel-timer-rules.yml");
    private static final Path OPERATIONS = DocFiles.ROOT.resolve("docs/operations.md");
    private static final Pattern SERIES = Pattern.compile("(?<![\\w:])(wheel_timer_[a-z_]*[a-z])(?![\\w:])");
    private static final Pattern SAMPLE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]", Pattern.MULTILINE);

    static class Handlers {
        final AtomicInteger runs = new AtomicInteger();

        @DurableTimerTask("order-payment")
        public void cancelIfUnpaid(String orderId) {
            runs.incrementAndGet();
        }
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void promtoolLoadsTheRules() throws Exception {
        Process promtool = new ProcessBuilder("promtool", "check", "rules", RULES.toString())
                .redirectErrorStream(true)
                .start();
        String output = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(promtool.waitFor())
                .as("promtool check rules %s:%n%s", RULES, output)
                .isZero();
        assertThat(output).contains("SUCCESS");
    }

    @Test
    void theRulesAndTheOperationsGuideReadSeriesAScrapeHas() throws Exception {
        Set<String> read = new TreeSet<>();
        for (String expression : expressions()) {
            read.addAll(series(expression));
        }
        assertThat(read).as("series the rules read").contains("wheel_timer_durable_failed_timeouts_total");
        Set<String> guide = series(String.join("\n", DocFiles.lines(OPERATIONS)));
        assertThat(guide).as("series the operations guide names").hasSizeGreaterThanOrEqualTo(8);

        Set<String> scraped = scrape();

        assertThat(scraped).as("the scrape").containsAll(read);
        assertThat(scraped).as("the scrape").containsAll(guide);
    }

    /** The PromQL of every rule of the rules file. */
    @SuppressWarnings("unchecked")
    private static List<String> expressions() throws IOException {
        Map<String, Object> rules = new Yaml().load(Files.readString(RULES));
        List<String> expressions = new ArrayList<>();
        for (Map<String, Object> group : (List<Map<String, Object>>) rules.get("groups")) {
            for (Map<String, Object> rule : (List<Map<String, Object>>) group.get("rules")) {
                expressions.add((String) rule.get("expr"));
            }
        }
        assertThat(expressions).as("rules in %s", RULES).hasSizeGreaterThanOrEqualTo(5);
        return expressions;
    }

    private static Set<String> series(String text) {
        Set<String> names = new TreeSet<>();
        Matcher series = SERIES.matcher(text);
        while (series.find()) {
            names.add(series.group(1));
        }
        return names;
    }

    /** The sample names of a scrape of an application configured as the operations guide's first block. */
    private static Set<String> scrape() throws Exception {
        DocFiles.Block configuration = DocFiles.blocks(OPERATIONS).stream()
                .filter(block -> block.body().contains("percentiles-histogram"))
                .findFirst()
                .orElseThrow(() -> new AssertionError(OPERATIONS + " has no block enabling the lateness histogram"));
        var sources = new YamlPropertySourceLoader()
                .load(
                        configuration.where(),
                        new ByteArrayResource(configuration.body().getBytes(StandardCharsets.UTF_8)));
        String url = "jdbc:h2:mem:rules-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
        Set<String> names = new TreeSet<>();
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        PropertyPlaceholderAutoConfiguration.class,
                        DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class,
                        TransactionAutoConfiguration.class,
                        TaskExecutionAutoConfiguration.class,
                        MetricsAutoConfiguration.class,
                        PrometheusMetricsExportAutoConfiguration.class,
                        WheelTimerAutoConfiguration.class,
                        WheelTimerMetricsAutoConfiguration.class,
                        DurableTimerAutoConfiguration.class,
                        DurableTimerMetricsAutoConfiguration.class))
                .withInitializer(context -> {
                    var propertySources = context.getEnvironment().getPropertySources();
                    sources.forEach(propertySources::addLast);
                    propertySources.addFirst(new MapPropertySource(
                            "test database",
                            Map.of(
                                    "spring.datasource.url", url,
                                    "spring.datasource.username", "sa",
                                    "spring.datasource.password", "",
                                    "wheel-timer.durable.initialize-schema", "always")));
                })
                .withBean(Handlers.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    context.getBean(DurableTimer.class).schedule("order-payment", "o-1", Duration.ZERO);
                    Handlers handlers = context.getBean(Handlers.class);
                    await().atMost(Duration.ofSeconds(60)).until(() -> handlers.runs.get() == 1);
                    PrometheusMeterRegistry registry = context.getBean(PrometheusMeterRegistry.class);
                    await().atMost(Duration.ofSeconds(30))
                            .until(() -> registry.scrape().contains("wheel_timer_durable_fired_timeouts_total{"));
                    Matcher sample = SAMPLE.matcher(registry.scrape());
                    while (sample.find()) {
                        names.add(sample.group(1));
                    }
                });
        assertThat(names).as("sample names scraped").isNotEmpty();
        return names;
    }
}
