//! A row of a FOCUS export into a [`BillLine`]: which column plays which role, and each
//! value parsed for its role whatever the file stored it as.

use std::collections::{BTreeSet, HashSet};
use std::sync::Arc;

use super::values::{self, is_null, parse_allowed, parse_decimal, parse_time_ms, tag_value};
use crate::data::error::{DataError, shown};
use crate::model::bill::{BillLine, ChargeCategory, HoursUnit, PricingCategory, UsageStatus, allowed};

/// Distinct providers, currencies and regions kept for the summary.
const MAX_DISTINCT: usize = 20;

/// The columns gpuplan reads, by role.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    Start,
    End,
    BillingStart,
    BillingEnd,
    Billed,
    Effective,
    Category,
    Pricing,
    Commitment,
    Reservation,
    Quantity,
    Unit,
    Sku,
    ResourceId,
    ResourceName,
    Region,
    Provider,
    Currency,
    Tags,
}

/// Each role's column names (the first is the FOCUS name) and whether it is required.
const ROLES: [(Role, &[&str], bool); 19] = [
    (Role::Start, &["ChargePeriodStart"], true),
    (Role::End, &["ChargePeriodEnd"], true),
    (Role::BillingStart, &["BillingPeriodStart"], false),
    (Role::BillingEnd, &["BillingPeriodEnd"], false),
    (Role::Billed, &["BilledCost"], true),
    (Role::Effective, &["EffectiveCost"], true),
    (Role::Category, &["ChargeCategory"], true),
    (Role::Pricing, &["PricingCategory"], false),
    (Role::Commitment, &["CommitmentDiscountStatus"], false),
    (Role::Reservation, &["CapacityReservationStatus"], false),
    (Role::Quantity, &["ConsumedQuantity"], false),
    (Role::Unit, &["ConsumedUnit"], false),
    (Role::Sku, &["SkuId"], false),
    (Role::ResourceId, &["ResourceId"], false),
    (Role::ResourceName, &["ResourceName"], false),
    (Role::Region, &["RegionId"], false),
    (Role::Provider, &["ProviderName", "ServiceProviderName"], false),
    (Role::Currency, &["BillingCurrency"], false),
    (Role::Tags, &["Tags"], false),
];

/// Where each role's column is in the file.
#[derive(Debug, Clone)]
pub(super) struct Columns {
    at: [Option<usize>; ROLES.len()],
    names: Vec<String>,
}

impl Columns {
    /// The roles' columns among `names`; the error lists what the file has.
    pub(super) fn find(names: &[String]) -> Result<Columns, DataError> {
        let mut at = [None; ROLES.len()];
        let mut missing = Vec::new();
        for (slot, (_, aliases, required)) in at.iter_mut().zip(ROLES) {
            *slot = aliases
                .iter()
                .find_map(|alias| names.iter().position(|n| n.trim().eq_ignore_ascii_case(alias)));
            if slot.is_none() && required {
                missing.push(aliases[0]);
            }
        }
        if missing.is_empty() {
            return Ok(Columns {
                at,
                names: names.to_vec(),
            });
        }
        let mut has: Vec<String> = names.iter().take(60).map(|n| shown(n)).collect();
        if names.len() > 60 {
            has.push(format!("… ({} in all)", names.len()));
        }
        Err(DataError::NotFocus { missing, has })
    }

    pub(super) fn index(&self, role: Role) -> Option<usize> {
        ROLES.iter().position(|(r, _, _)| *r == role).and_then(|i| self.at[i])
    }

    /// The file's own name for a role's column.
    pub(super) fn name(&self, role: Role) -> String {
        self.index(role)
            .and_then(|i| self.names.get(i))
            .map_or_else(|| format!("{role:?}"), |n| n.trim().to_string())
    }

    pub(super) fn used(&self) -> impl Iterator<Item = (Role, usize)> + '_ {
        ROLES
            .iter()
            .zip(self.at)
            .filter_map(|((role, _, _), at)| Some((*role, at?)))
    }
}

/// One value of a row, as the file holds it.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Cell<'a> {
    Null,
    Text(&'a str),
    Number(f64),
    TimeMs(i64),
    /// A `Tags` map already searched for the tag key.
    Tag(Option<String>),
}

/// What the rows showed besides their lines.
#[derive(Debug, Default)]
pub(super) struct Seen {
    /// One copy of each text value kept in lines.
    strings: HashSet<Arc<str>>,
    pub(super) providers: BTreeSet<String>,
    pub(super) currencies: BTreeSet<String>,
    pub(super) regions: BTreeSet<String>,
    pub(super) null_costs: u64,
}

impl Seen {
    fn shared(&mut self, value: Option<String>) -> Option<Arc<str>> {
        let value = value?;
        if let Some(known) = self.strings.get(value.as_str()) {
            return Some(known.clone());
        }
        let shared: Arc<str> = value.into();
        self.strings.insert(shared.clone());
        Some(shared)
    }

    fn note(set: &mut BTreeSet<String>, value: Option<String>) {
        if let Some(value) = value
            && set.len() < MAX_DISTINCT
        {
            set.insert(value);
        }
    }
}

/// One row into a line; the error names the role whose value is bad.
pub(super) fn build_line<'a>(
    cell: &impl Fn(Role) -> Result<Cell<'a>, String>,
    tag_key: &str,
    seen: &mut Seen,
) -> Result<BillLine, (Role, String)> {
    let get = |role: Role| cell(role).map_err(|m| (role, m));
    let time = |role: Role| -> Result<Option<i64>, (Role, String)> {
        match get(role)? {
            Cell::Null => Ok(None),
            Cell::Text(t) if is_null(t) => Ok(None),
            Cell::Text(t) => parse_time_ms(t).map(Some).map_err(|m| (role, m.to_string())),
            Cell::TimeMs(ms) => Ok(Some(ms)),
            Cell::Number(_) | Cell::Tag(_) => Err((role, "expected a date-time, found a number".to_string())),
        }
    };
    let decimal = |role: Role| -> Result<Option<f64>, (Role, String)> {
        match get(role)? {
            Cell::Null => Ok(None),
            Cell::Text(t) => parse_decimal(t).map_err(|m| (role, m.to_string())),
            Cell::Number(v) if v.is_finite() => Ok(Some(v)),
            Cell::Number(v) => Err((role, format!("{v} is not an amount"))),
            Cell::TimeMs(_) | Cell::Tag(_) => Err((role, "expected a decimal number, found a date-time".to_string())),
        }
    };
    let text = |role: Role| -> Result<Option<String>, (Role, String)> {
        Ok(match get(role)? {
            Cell::Null | Cell::Tag(_) => None,
            Cell::Text(t) => values::text(t),
            Cell::Number(v) => Some(v.to_string()),
            Cell::TimeMs(ms) => Some(crate::model::fleet::iso_utc(ms)),
        })
    };
    let named = |role: Role| -> Result<Option<String>, (Role, String)> {
        match get(role)? {
            Cell::Text(t) => Ok((!is_null(t)).then(|| t.to_string())),
            Cell::Null => Ok(None),
            _ => Err((role, "expected text".to_string())),
        }
    };

    let required = |role: Role, value: Option<i64>| {
        value.ok_or_else(|| (role, "empty: every line needs its charge period".to_string()))
    };
    let start_ms = required(Role::Start, time(Role::Start)?)?;
    let end_ms = required(Role::End, time(Role::End)?)?;
    if end_ms < start_ms {
        return Err((
            Role::End,
            format!(
                "the charge period ends ({}) before it starts ({})",
                crate::model::fleet::iso_utc(end_ms),
                crate::model::fleet::iso_utc(start_ms)
            ),
        ));
    }
    let billing_period_ms = match (time(Role::BillingStart)?, time(Role::BillingEnd)?) {
        (None, None) => None,
        (Some(start), Some(end)) if end >= start => Some((start, end)),
        (Some(start), Some(end)) => {
            return Err((
                Role::BillingEnd,
                format!(
                    "the billing period ends ({}) before it starts ({})",
                    crate::model::fleet::iso_utc(end),
                    crate::model::fleet::iso_utc(start)
                ),
            ));
        }
        (Some(_), None) => {
            return Err((
                Role::BillingEnd,
                "empty beside a BillingPeriodStart: a billing period needs both".to_string(),
            ));
        }
        (None, Some(_)) => {
            return Err((
                Role::BillingStart,
                "empty beside a BillingPeriodEnd: a billing period needs both".to_string(),
            ));
        }
    };
    let billed = decimal(Role::Billed)?;
    let effective = decimal(Role::Effective)?;
    if billed.is_none() || effective.is_none() {
        seen.null_costs += 1;
    }
    let category = parse_allowed(
        named(Role::Category)?.as_deref().unwrap_or(""),
        ChargeCategory::parse,
        &allowed(&ChargeCategory::NAMES),
    )
    .map_err(|m| (Role::Category, m.to_string()))?
    .ok_or_else(|| {
        (
            Role::Category,
            format!("empty: expected one of {}", allowed(&ChargeCategory::NAMES)),
        )
    })?;
    let status = |role: Role| -> Result<Option<UsageStatus>, (Role, String)> {
        parse_allowed(
            named(role)?.as_deref().unwrap_or(""),
            UsageStatus::parse,
            &allowed(&UsageStatus::NAMES),
        )
        .map_err(|m| (role, m.to_string()))
    };
    let pricing = parse_allowed(
        named(Role::Pricing)?.as_deref().unwrap_or(""),
        PricingCategory::parse,
        &allowed(&PricingCategory::NAMES),
    )
    .map_err(|m| (Role::Pricing, m.to_string()))?;
    let commitment = status(Role::Commitment)?;
    let reservation = status(Role::Reservation)?;
    let quantity = decimal(Role::Quantity)?;
    let unit = text(Role::Unit)?;
    let consumed_hours = match (quantity, unit.as_deref().and_then(HoursUnit::of_unit)) {
        (Some(quantity), Some((kind, per))) => Some((kind, quantity * per)),
        _ => None,
    };
    let cluster_tag = match get(Role::Tags)? {
        Cell::Tag(value) => value,
        Cell::Text(t) => tag_value(t, tag_key).map_err(|m| (Role::Tags, m.to_string()))?,
        _ => None,
    };
    let provider = text(Role::Provider)?;
    Seen::note(&mut seen.providers, provider.clone());
    Seen::note(&mut seen.currencies, text(Role::Currency)?);
    Seen::note(&mut seen.regions, text(Role::Region)?);
    Ok(BillLine {
        charge_period_start_ms: start_ms,
        charge_period_end_ms: end_ms,
        billing_period_ms,
        billed_cost_usd: billed.unwrap_or(0.0),
        effective_cost_usd: effective.unwrap_or(0.0),
        charge_category: category,
        pricing_category: pricing,
        commitment_discount_status: commitment,
        capacity_reservation_status: reservation,
        consumed_hours,
        sku_id: seen.shared(text(Role::Sku)?),
        provider: seen.shared(provider),
        resource_id: seen.shared(text(Role::ResourceId)?),
        resource_name: seen.shared(text(Role::ResourceName)?),
        cluster_tag: seen.shared(cluster_tag),
    })
}

/// The FOCUS version a set of columns suggests (the columns each version added), with the
/// columns that say so.
pub fn guess_version(names: &[String]) -> (String, Vec<String>) {
    const ADDED: [(&str, &[&str]); 3] = [
        (
            "1.2",
            &[
                "InvoiceId",
                "PricingCurrency",
                "PricingCurrencyEffectiveCost",
                "PricingCurrencyListUnitPrice",
                "PricingCurrencyContractedUnitPrice",
                "BillingAccountType",
                "SubAccountType",
            ],
        ),
        (
            "1.1",
            &[
                "CapacityReservationId",
                "CapacityReservationStatus",
                "CommitmentDiscountQuantity",
                "CommitmentDiscountUnit",
                "ServiceSubcategory",
                "SkuMeter",
                "SkuPriceDetails",
            ],
        ),
        (
            "1.0",
            &[
                "ChargeClass",
                "CommitmentDiscountStatus",
                "ConsumedQuantity",
                "ConsumedUnit",
                "ContractedCost",
                "ContractedUnitPrice",
                "RegionId",
                "RegionName",
            ],
        ),
    ];
    for (version, columns) in ADDED {
        let found: Vec<String> = columns
            .iter()
            .filter(|c| names.iter().any(|n| n.trim().eq_ignore_ascii_case(c)))
            .take(3)
            .map(|c| c.to_string())
            .collect();
        if !found.is_empty() {
            return (version.to_string(), found);
        }
    }
    ("before 1.0".to_string(), Vec::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_are_guessed_from_the_columns_each_added() {
        let names = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(guess_version(&names(&["BilledCost", "InvoiceId"])).0, "1.2");
        assert_eq!(
            guess_version(&names(&["capacityreservationstatus", "ConsumedQuantity"])),
            ("1.1".to_string(), vec!["CapacityReservationStatus".to_string()])
        );
        assert_eq!(guess_version(&names(&["ConsumedQuantity"])).0, "1.0");
        assert_eq!(guess_version(&names(&["UsageQuantity"])).0, "before 1.0");
    }
}
