package io.wheeltimer.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.core.io.support.SpringFactoriesLoader;

/** Every script this jar ships stays in a native image. */
class DurableTimerRuntimeHintsTest {

    @Test
    void everyShippedScriptIsAResourceHint() throws Exception {
        RuntimeHints hints = new RuntimeHints();
        new DurableTimerRuntimeHints().registerHints(hints, getClass().getClassLoader());

        Resource[] scripts =
                new PathMatchingResourcePatternResolver().getResources("classpath*:io/wheeltimer/jdbc/*.sql");
        assertThat(scripts).hasSizeGreaterThanOrEqualTo(8); // schema and upgrade, for four databases
        for (Resource script : scripts) {
            String path = "io/wheeltimer/jdbc/" + script.getFilename();
            assertThat(RuntimeHintsPredicates.resource().forResource(path))
                    .as(path)
                    .accepts(hints);
        }
        assertThat(RuntimeHintsPredicates.resource().forResource("io/wheeltimer/jdbc/other.txt"))
                .rejects(hints);
    }

    @Test
    void theRegistrarIsFoundInAotFactories() {
        assertThat(SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
                        .load(RuntimeHintsRegistrar.class))
                .hasAtLeastOneElementOfType(DurableTimerRuntimeHints.class);
    }
}
