package io.wheeltimer.sample;

import static org.assertj.core.api.Assertions.assertThat;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The reachability metadata that AOT processing put into the sample's jar, which a native image build
 * reads: it names what the starter, the durable timeouts and the sample reach by reflection or as
 * resources (no native image is built here: that needs GraalVM).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class NativeImageHintsIT {

    private static final String METADATA = "META-INF/native-image/io.wheeltimer/sample-app/reachability-metadata.json";

    private DocumentContext metadata;

    @BeforeAll
    void read() throws IOException {
        Path jar = Path.of(System.getProperty("sample.jar", "target/sample-app.jar"));
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            ZipEntry entry = zip.getEntry(METADATA);
            assertThat(entry).as(METADATA + " in " + jar).isNotNull();
            try (InputStream in = zip.getInputStream(entry)) {
                metadata = JsonPath.parse(in);
            }
        }
    }

    @Test
    void annotatedMethodsCanBeInvoked() {
        assertThat(methods("io.wheeltimer.sample.OrderService")).contains("cancelIfUnpaid"); // @DurableTimerTask
        assertThat(methods("io.wheeltimer.sample.PaymentProvider")).contains("charge"); // @WheelTimeLimit
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "io.wheeltimer.spring.autoconfigure.WheelTimerEndpoint$TimersDescriptor",
                "io.wheeltimer.spring.autoconfigure.WheelTimerEndpoint$TimerDetailDescriptor",
                "io.wheeltimer.spring.autoconfigure.WheelTimerEndpoint$UpcomingTimeout",
                "io.wheeltimer.spring.autoconfigure.WheelTimerEndpoint$StoppedDescriptor",
                "io.wheeltimer.spring.autoconfigure.WheelTimerEndpoint$ProblemDescriptor",
                "io.wheeltimer.spring.autoconfigure.durable.DurableTimerEndpointContributor$DurableDescriptor"
            })
    void endpointAnswersCanBeWritten(String type) {
        assertThat(methods(type)).as(type).isNotEmpty();
    }

    @Test
    void theTimersVarHandleFieldsAreThere() {
        assertThat(metadata.<List<String>>read(
                        "$.reflection[?(@.type == 'io.wheeltimer.TimeoutHandle')].fields[*].name"))
                .contains("state", "link");
    }

    @Test
    void tomcatCanCreateTheErrorReportValve() {
        assertThat(metadata.<List<Object>>read(
                        "$.reflection[?(@.type == 'io.wheeltimer.sample.ProblemErrorReportValve')]"))
                .isNotEmpty();
    }

    @Test
    void theDurableTimeoutsScriptsAreResources() {
        assertThat(metadata.<List<String>>read("$.resources[*].glob"))
                .contains("io/wheeltimer/jdbc/schema-*.sql", "io/wheeltimer/jdbc/upgrade-*.sql");
    }

    private List<String> methods(String type) {
        return metadata.read("$.reflection[?(@.type == '" + type + "')].methods[*].name");
    }
}
