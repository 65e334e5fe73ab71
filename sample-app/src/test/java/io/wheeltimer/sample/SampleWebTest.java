package io.wheeltimer.sample;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.core.annotation.AliasFor;
import org.springframework.test.context.junit.jupiter.SpringExtension;

/**
 * A test of the sample over real HTTP: the application on a random port, with these {@link #properties()},
 * and its {@link Api} handed to any test or lifecycle method that declares one as a parameter.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@ExtendWith(SampleWebTest.ApiParameter.class)
@interface SampleWebTest {

    /** The application's properties for this test, as {@link SpringBootTest#properties()}. */
    @AliasFor(annotation = SpringBootTest.class)
    String[] properties() default {};

    /** Resolves an {@link Api} parameter to the API of the test's application. */
    final class ApiParameter implements ParameterResolver {

        @Override
        public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
            return parameter.getParameter().getType() == Api.class;
        }

        @Override
        public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
            return Api.of(SpringExtension.getApplicationContext(context));
        }
    }
}
