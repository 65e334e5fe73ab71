package io.wheeltimer.sample;

import java.time.Clock;
import org.apache.catalina.core.StandardHost;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.annotation.RegisterReflection;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;

/**
 * An order service whose unpaid orders cancel themselves: each payment deadline is a durable timeout
 * ({@code @DurableTimerTask}), kept in the orders' database and fired from the wheel.
 */
@SpringBootApplication
@ConfigurationPropertiesScan
// Tomcat creates the valve from its class name (problemErrorReports below).
@RegisterReflection(
        classes = ProblemErrorReportValve.class,
        memberCategories = MemberCategory.INVOKE_PUBLIC_CONSTRUCTORS)
public class SampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(SampleApplication.class, args);
    }

    @Bean
    Clock clock() {
        return Clock.systemUTC();
    }

    /** Tomcat's error pages (bad URIs it rejects itself) as problem details, not HTML. */
    @Bean
    WebServerFactoryCustomizer<TomcatServletWebServerFactory> problemErrorReports() {
        return factory -> factory.addContextCustomizers(context -> {
            if (context.getParent() instanceof StandardHost host) {
                host.setErrorReportValveClass(ProblemErrorReportValve.class.getName());
            }
        });
    }
}
