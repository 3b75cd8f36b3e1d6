//! The simulated desktop as a [`Replica`]: copies are clones of its state, and
//! its windows and application specs answer what an observation does not.

use std::collections::{BTreeMap, BTreeSet};

use super::{DesktopState, Live, SimDesktop, Target};
use crate::env::replica::Replica;
use crate::env::spec::{LoadedApp, Op};
use crate::env::{ControlInfo, EnvError, StepOutcome};
use crate::model::Action;
use crate::resources::{KindSpec, Resource};

impl Replica for SimDesktop {
    fn fork(&self) -> Box<dyn Replica> {
        Box::new(self.clone())
    }

    fn resolves(&self, action: &Action) -> bool {
        self.live().resolve(action).is_some()
    }

    fn specs(&self) -> &[LoadedApp] {
        self.apps()
    }

    fn initial_resources(&self) -> BTreeSet<Resource> {
        SimDesktop::initial_resources(self)
    }

    fn open_windows(&self) -> Vec<String> {
        self.state().windows.iter().map(|w| w.app.clone()).collect()
    }

    fn active_window(&self) -> Option<usize> {
        self.state().active
    }

    fn launch(&mut self, app: &str) -> Result<(), EnvError> {
        SimDesktop::launch(self, app)
    }

    fn show_desktop_text(&self) -> Option<String> {
        self.live()
            .controls
            .iter()
            .find(|c| c.target == Target::ShowDesktop)
            .map(|c| c.info.control_text.clone())
    }

    fn is_chrome(&self, control: &ControlInfo) -> bool {
        self.live()
            .controls
            .iter()
            .find(|c| c.info.label == control.label)
            .is_some_and(|c| {
                matches!(
                    c.target,
                    Target::ShowDesktop | Target::Minimize | Target::CloseWindow | Target::Inert
                )
            })
    }

    /// A control of the spec's current screen whose every click effect goes to
    /// the start screen or back.
    fn home_control(&self, app: &str) -> Option<String> {
        let state = self.state();
        let window = state.active.and_then(|i| state.windows.get(i))?;
        if window.app != app {
            return None;
        }
        let spec = &self.app(app)?.spec;
        if window.screen == spec.start {
            return None;
        }
        let screen = spec.screens.get(&window.screen)?;
        let home = screen.controls.iter().map(|c| c.get_ref()).find(|c| {
            !c.click.is_empty()
                && c.click.iter().all(|e| match &e.op {
                    Op::Goto { screen } => screen == &spec.start,
                    Op::Back => true,
                    _ => false,
                })
        })?;
        Some(home.text.clone())
    }

    fn state(&self) -> &DesktopState {
        SimDesktop::state(self)
    }

    fn restore(&mut self, state: DesktopState) {
        SimDesktop::restore(self, state);
    }

    fn live(&self) -> &Live {
        SimDesktop::live(self)
    }

    fn kinds(&self) -> &BTreeMap<String, KindSpec> {
        SimDesktop::kinds(self)
    }

    fn current_resources(&self) -> BTreeSet<Resource> {
        SimDesktop::current_resources(self)
    }

    fn act(&mut self, action: &Action) -> StepOutcome {
        SimDesktop::step(self, action)
    }

    fn act_quiet(&mut self, action: &Action) -> bool {
        SimDesktop::step_quiet(self, action)
    }
}
