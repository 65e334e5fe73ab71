package io.wheeltimer.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.spring.autoconfigure.WheelTimerAutoConfiguration;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.env.YamlPropertySourceLoader;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.ByteArrayResource;

/**
 * The README's {@code ```yaml} blocks bind as written: an application that copies one starts, and
 * every value means what its comment says (Hikari's timeouts are numbers of milliseconds, not
 * durations such as {@code 5s}).
 */
class ReadmeYamlTest {

    private static final Path README = Path.of("..", "README.md");
    private static final Pattern YAML_BLOCK = Pattern.compile("```yaml\n(.*?)```", Pattern.DOTALL);

    @Test
    void theDurableQuickStartYamlBindsAndWaitsFiveSecondsForAConnection() throws Exception {
        List<String> blocks = yamlBlocks();
        List<String> withHikari =
                blocks.stream().filter(b -> b.contains("hikari:")).toList();
        assertThat(withHikari).as("README yaml blocks that set Hikari").hasSize(1);

        runnerWith(withHikari.get(0)).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(HikariDataSource.class).getConnectionTimeout())
                    .isEqualTo(5000);
            assertThat(context.getBean(HashedWheelTimer.class).tickDuration()).isEqualTo(Duration.ofMillis(10));
        });
    }

    @Test
    void everyYamlBlockOfTheReadmeStartsAnApplication() throws Exception {
        List<String> blocks = yamlBlocks();
        assertThat(blocks).as("the README's yaml blocks").isNotEmpty();
        for (String block : blocks) {
            runnerWith(block)
                    .run(context -> assertThat(context)
                            .as("an application with the README's yaml:%n%s", block)
                            .hasNotFailed());
        }
    }

    private static List<String> yamlBlocks() throws Exception {
        String readme = Files.readString(README, StandardCharsets.UTF_8);
        List<String> blocks = new ArrayList<>();
        Matcher block = YAML_BLOCK.matcher(readme);
        while (block.find()) {
            blocks.add(block.group(1));
        }
        return blocks;
    }

    /** An application with a DataSource on an in-memory H2 and the wheel timer, configured by {@code yaml}. */
    private static ApplicationContextRunner runnerWith(String yaml) throws Exception {
        List<String> properties = new ArrayList<>();
        for (PropertySource<?> source : new YamlPropertySourceLoader()
                .load("README", new ByteArrayResource(yaml.getBytes(StandardCharsets.UTF_8)))) {
            EnumerablePropertySource<?> enumerable = (EnumerablePropertySource<?>) source;
            for (String name : enumerable.getPropertyNames()) {
                properties.add(name + "=" + enumerable.getProperty(name));
            }
        }
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        PropertyPlaceholderAutoConfiguration.class,
                        DataSourceAutoConfiguration.class,
                        WheelTimerAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=jdbc:h2:mem:readme-yaml;DB_CLOSE_DELAY=-1")
                .withPropertyValues(properties.toArray(String[]::new));
    }
}
