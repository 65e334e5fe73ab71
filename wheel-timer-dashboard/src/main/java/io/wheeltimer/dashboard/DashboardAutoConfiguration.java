package io.wheeltimer.dashboard;

import io.wheeltimer.HashedWheelTimer;
import io.wheeltimer.jdbc.DurableTimerListener;
import io.wheeltimer.jdbc.JdbcDurableTimer;
import java.time.Clock;
import java.util.Map;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.web.servlet.function.RouterFunction;
import org.springframework.web.servlet.function.ServerResponse;

/**
 * Serves the wheel-timer dashboard at {@code wheel-timer.dashboard.path} in a servlet web application
 * (Spring MVC): the wheels always, the durable timeouts when they are configured. Off with
 * {@code wheel-timer.dashboard.enabled=false}. The pages are a {@link RouterFunction} bean, so the
 * application's own view resolution, static resources and template engines are left as they are.
 */
@AutoConfiguration(
        afterName = {
            "io.wheeltimer.spring.autoconfigure.WheelTimerAutoConfiguration",
            "io.wheeltimer.spring.autoconfigure.durable.DurableTimerAutoConfiguration"
        })
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({RouterFunction.class, HashedWheelTimer.class})
@ConditionalOnBooleanProperty(name = "wheel-timer.dashboard.enabled", matchIfMissing = true)
@EnableConfigurationProperties(DashboardProperties.class)
@ImportRuntimeHints(DashboardRuntimeHints.class)
public final class DashboardAutoConfiguration {

    @Bean
    RouterFunction<ServerResponse> wheelTimerDashboardRoutes(
            DashboardProperties properties,
            ApplicationContext context,
            ListableBeanFactory beanFactory,
            ObjectProvider<DurableSections> durable) {
        DashboardAccess access =
                new DashboardAccess(properties, DashboardAccess.isSecurityPresent(context.getClassLoader()));
        return new DashboardRoutes(
                        properties.checkedPath(),
                        properties.checkedRefresh(),
                        access,
                        () -> wheels(beanFactory),
                        durable::getIfAvailable)
                .routes();
    }

    private static Map<String, HashedWheelTimer> wheels(ListableBeanFactory beanFactory) {
        return new java.util.TreeMap<>(beanFactory.getBeansOfType(HashedWheelTimer.class, false, false));
    }

    /**
     * The lateness window, fed by every durable timer in the context, when {@code wheel-timer-jdbc} is
     * on the class path; the durable sections when a durable timer is configured.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(JdbcDurableTimer.class)
    static class DurableConfiguration {

        @Bean
        LatenessWindow wheelTimerDashboardLateness() {
            return new LatenessWindow(Clock.systemUTC());
        }

        /** Fed to the durable timer, as every {@link DurableTimerListener} bean is. */
        @Bean
        DurableTimerListener wheelTimerDashboardLatenessListener(LatenessWindow window) {
            return new LatenessListener(window);
        }

        @Bean
        @ConditionalOnBean({JdbcDurableTimer.class, PlatformTransactionManager.class})
        DurableSections wheelTimerDashboardDurableSections(
                JdbcDurableTimer durable, LatenessWindow window, PlatformTransactionManager transactionManager) {
            return new JdbcDurableSections(durable, window, new TransactionTemplate(transactionManager));
        }
    }
}
